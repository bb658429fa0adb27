// The API's PostgreSQL role (infra/postgres/db-bootstrap.sql), bootstrapped both ways it is deployed: as the
// Kubernetes Job runs psql, and through docker compose's init script (the files docker-compose.yml mounts, with
// the environment it gives them). Then the API's real migration step runs as that role: the migrations land in
// the role's own schema, and the role cannot reach outside it, which is what an SQL injection in the API would try.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import { createTemporaryDatabase, type TemporaryDatabase } from '../lib/postgres.ts';
import { repoRoot as root } from '../lib/paths.ts';

const apiDir = join(root, 'services/api');
const script = join(import.meta.dirname, 'db-bootstrap.sql');
const adminUrl = inject('postgresAdminUrl');
const PASSWORD = 'bootstrap-test-password';

interface Result {
  status: number | null;
  output: string;
}

function run(command: string, args: string[], env: Record<string, string | undefined>, cwd = root): Result {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { PATH: process.env.PATH, ...env } });
  if (result.error) throw new Error(`${command} could not be run: ${result.error.message}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** libpq's variables for the test server as its superuser (the Job and the image pass theirs the same way). */
function superuserEnv(databaseUrl: string) {
  const url = new URL(databaseUrl);
  return {
    PGHOST: url.hostname,
    PGPORT: url.port || '5432',
    PGUSER: decodeURIComponent(url.username),
    PGPASSWORD: url.password ? decodeURIComponent(url.password) : undefined,
    PGDATABASE: url.pathname.slice(1),
  };
}

/** psql as the server's superuser against the test database, exactly as the Job's command calls it. */
const kubernetesJob = (database: TemporaryDatabase, role: string, password: string | undefined) =>
  run('psql', ['--no-psqlrc', '-v', 'ON_ERROR_STOP=1', '-v', `app_role=${role}`, '-f', script], {
    ...superuserEnv(database.url),
    ATRIUM_DB_PASSWORD: password,
  });

interface ComposeService {
  environment: Record<string, string>;
  volumes: string[];
}
const composePostgres = (
  parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8')) as {
    services: { postgres: ComposeService };
  }
).services.postgres;
/** The postgres service's bind mounts: container path -> file in the repository. */
const composeMounts = new Map(
  composePostgres.volumes
    .filter((volume) => volume.startsWith('./'))
    .map((volume) => {
      const [source = '', target = ''] = volume.split(':');
      return [target, join(root, source)] as const;
    }),
);

/**
 * docker compose's init scripts as the postgres image runs them on first start: every executable `*.sh` the
 * service mounts into /docker-entrypoint-initdb.d, with the service's environment and POSTGRES_DB created. Its
 * mounts are mapped to the repository, and the role, the database and the server are the test's own.
 */
function composeInit(database: TemporaryDatabase, role: string, password: string | undefined): Result {
  const { PGHOST, PGPORT, PGUSER, PGPASSWORD } = superuserEnv(database.url);
  const initScripts = [...composeMounts]
    .filter(([target]) => /^\/docker-entrypoint-initdb\.d\/[^/]+\.sh$/.test(target))
    .map(([, source]) => source);
  expect(initScripts).toEqual([join(root, 'infra/postgres/initdb-atrium-role.sh')]);
  const environment = composePostgres.environment;
  let last: Result = { status: 0, output: '' };
  for (const initScript of initScripts) {
    last = run(initScript, [], {
      // What the image's entrypoint has when it runs the script (PGPASSWORD: it exports POSTGRES_PASSWORD).
      PGHOST,
      PGPORT,
      PGPASSWORD,
      POSTGRES_USER: PGUSER,
      POSTGRES_DB: database.name,
      ATRIUM_DB_ROLE: role,
      ATRIUM_DB_PASSWORD: password,
      ATRIUM_DB_BOOTSTRAP_SQL: composeMounts.get(environment.ATRIUM_DB_BOOTSTRAP_SQL ?? ''),
    });
    if (last.status !== 0) return last;
  }
  return last;
}

beforeAll(() => {
  if (!existsSync(join(apiDir, 'dist/database/migrate.js'))) {
    const build = run('npm', ['run', 'build', '--workspace', 'services/api'], {});
    if (build.status !== 0) throw new Error(`building the API failed:\n${build.output}`);
  }
});

describe.each([
  { way: 'the Kubernetes Job', bootstrap: kubernetesJob },
  { way: "docker compose's init script", bootstrap: composeInit },
])('the API database role bootstrap ($way)', ({ bootstrap }) => {
  let database: TemporaryDatabase;
  const role = `atrium_it_${randomBytes(4).toString('hex')}`;
  const roleUrl = () => {
    const url = new URL(database.url);
    url.username = role;
    url.password = PASSWORD;
    return url.toString();
  };

  /** The API's own migration step (what the migrate Job and compose service run), logged in as the role. */
  const migrate = () =>
    run(
      'node',
      ['--enable-source-maps', 'dist/database/migrate.js'],
      {
        DATABASE_URL: roleUrl(),
        MIKRO_ORM_SCHEMA: role,
      },
      apiDir,
    );

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

  it('fails without the role password instead of creating a role nobody can log in as', () => {
    const result = bootstrap(database, role, undefined);
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('ATRIUM_DB_PASSWORD is not set');
  });

  it('creates the role and its schema, and can run again', () => {
    expect(bootstrap(database, role, PASSWORD)).toMatchObject({ status: 0 });
    expect(bootstrap(database, role, PASSWORD)).toMatchObject({ status: 0 });
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
