import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server tests create their databases on; trust auth on loopback in development and CI. */
export const postgresAdminUrl =
  process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TemporaryDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates an empty database for one test run; `drop()` removes it even while connections remain. */
export async function createTemporaryDatabase(prefix: string): Promise<TemporaryDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: postgresAdminUrl });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `Cannot reach PostgreSQL at ${postgresAdminUrl} (${String(error)}). Start it with ` +
        '`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or set TEST_POSTGRES_URL.',
      { cause: error },
    );
  }
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(postgresAdminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new pg.Client({ connectionString: postgresAdminUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
