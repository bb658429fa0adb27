// The real PostgreSQL from outside: statements as its administrator, and counts of what a test wrote.
import { queryRows } from '@atrium/infra-lib/postgres';
import pg from 'pg';

/** Runs statements on the PostgreSQL server as admin (create/drop databases), one connection for all. */
export async function adminQuery(adminUrl: string, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Runs one `SELECT ... AS n` and returns n (e.g. counting rows a test wrote). */
export async function countRows(url: string, statement: string): Promise<number> {
  const [row] = await queryRows(url, statement);
  return (row?.['n'] as number | undefined) ?? 0;
}

/** The URL of another database on the same server as `adminUrl`. */
export function databaseUrlFor(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}
