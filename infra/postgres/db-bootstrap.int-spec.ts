// The Kubernetes bootstrap of the API's PostgreSQL role (infra/postgres/db-bootstrap.sql), run the way the Job
// runs it, then the API's real migration step as that role: the migrations land in the role's own schema, and
// the role cannot reach outside it, which is what an SQL injection in the API would try.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTemporaryDatabase, type TemporaryDatabase } from '../testing/postgres.ts';

const root = join(import.meta.dirname, '../..');
const apiDir = join(root, 'services/api');
const script = join(import.meta.dirname, 'db-bootstrap.sql');
const adminUrl = inject('postgresAdminUrl');

let database: TemporaryDatabase;
const role = `atrium_it_${randomBytes(4).toString('hex')}`;
const roleUrl = () => {
  const url = new URL(database.url);
  url.username = role;
  url.password = 'bootstrap-test-password';
  return url.toString();
};

/** psql as the server's superuser against the test database, exactly as the Job calls it. */
function bootstrap(env: Record<string, string | undefined>) {
  const result = spawnSync(
    'psql',
    ['--no-psqlrc', '-v', 'ON_ERROR_STOP=1', '-v', `app_role=${role}`, '-f', script, database.url],
    { encoding: 'utf8', env: { PATH: process.env.PATH, ...env } },
  );
  if (result.error) throw new Error(`psql could not be run: ${result.error.message}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The API's own migration step (what the migrate Job runs), logged in as the role. */
function migrate() {
  const result = spawnSync('node', ['--enable-source-maps', 'dist/database/migrate.js'], {
    cwd: apiDir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, DATABASE_URL: roleUrl(), MIKRO_ORM_SCHEMA: role },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

async function asRole<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: roleUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The error PostgreSQL answers `sql` with when run as the role, or undefined when it succeeds. */
const refusal = (sql: string) =>
  asRole(async (client) => {
    try {
      await client.query(sql);
      return undefined;
    } catch (error) {
      return (error as { code?: string }).code;
    }
  });

beforeAll(async () => {
  if (!existsSync(join(apiDir, 'dist/database/migrate.js'))) {
    const build = spawnSync('npm', ['run', 'build', '--workspace', 'services/api'], {
      cwd: root,
      encoding: 'utf8',
    });
    if (build.status !== 0) throw new Error(`building the API failed:\n${build.stdout}${build.stderr}`);
  }
  database = await createTemporaryDatabase('atrium_role', adminUrl);
});

afterAll(async () => {
  await database?.drop();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
  } finally {
    await admin.end();
  }
});

describe('the API database role bootstrap (the Kubernetes Job)', () => {
  it('fails without the role password instead of creating a role nobody can log in as', () => {
    const result = bootstrap({});
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('ATRIUM_DB_PASSWORD is not set');
  });

  it('creates the role and its schema, and can run again', () => {
    expect(bootstrap({ ATRIUM_DB_PASSWORD: 'bootstrap-test-password' })).toMatchObject({ status: 0 });
    expect(bootstrap({ ATRIUM_DB_PASSWORD: 'bootstrap-test-password' })).toMatchObject({ status: 0 });
  });

  it("runs the API's migrations as that role into its own schema, and again as a no-op", async () => {
    const first = migrate();
    expect(first.status, first.output).toBe(0);
    const tables = await asRole(async (client) => {
      const { rows } = await client.query<{ schemaname: string; tablename: string; tableowner: string }>(
        `SELECT schemaname, tablename, tableowner FROM pg_tables
          WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY tablename`,
      );
      return rows;
    });
    expect(tables.map((table) => table.tablename)).toEqual(
      expect.arrayContaining([
        'audit_event',
        'mikro_orm_migrations',
        'remote',
        'remote_version',
        'user_profile',
      ]),
    );
    for (const table of tables)
      expect(table, table.tablename).toMatchObject({ schemaname: role, tableowner: role });
    const again = migrate();
    expect(again.status, again.output).toBe(0);
    expect(again.output).toContain('up to date');
  });

  it('keeps working in its schema, and is refused everything outside it', async () => {
    // What the API does: read and write its own tables by their plain names.
    await asRole((client) =>
      client.query(
        `INSERT INTO user_profile (id, username, theme, created_at, updated_at) VALUES ('u1', 'alice', 'dark', now(), now())`,
      ),
    );
    const { rows } = await asRole((client) =>
      client.query<{ username: string }>('SELECT username FROM user_profile'),
    );
    expect(rows).toEqual([{ username: 'alice' }]);

    const insufficientPrivilege = '42501';
    expect(await refusal('CREATE TABLE public.planted (id int)')).toBe(insufficientPrivilege);
    expect(await refusal('CREATE SCHEMA planted')).toBe(insufficientPrivilege);
    expect(await refusal('CREATE TEMP TABLE planted (id int)')).toBe(insufficientPrivilege);
    expect(await refusal('CREATE ROLE planted LOGIN')).toBe(insufficientPrivilege);
    expect(await refusal('CREATE DATABASE planted')).toBe(insufficientPrivilege);
    expect(await refusal('SELECT rolpassword FROM pg_authid')).toBe(insufficientPrivilege);
    expect(await refusal("COPY user_profile TO PROGRAM 'id'")).toBe(insufficientPrivilege);
    expect(await refusal('SET ROLE postgres')).toBe(insufficientPrivilege);
    const powers = await asRole(async (client) => {
      const result = await client.query<{ rolsuper: boolean; rolcreatedb: boolean; rolcreaterole: boolean }>(
        'SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user',
      );
      return result.rows[0];
    });
    expect(powers).toEqual({ rolsuper: false, rolcreatedb: false, rolcreaterole: false });
  });
});
