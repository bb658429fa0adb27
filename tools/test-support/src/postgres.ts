// The real PostgreSQL from outside: statements as its administrator, counts of what a test wrote, and a link to
// it whose listening connections a test can cut without telling either side.
import { once } from 'node:events';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
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

/** A TCP link to a PostgreSQL server that can fall silent for the connections that LISTEN, as a cut network would. */
export interface PostgresLink {
  /** `databaseUrl` with the link's own address. */
  readonly url: string;
  /** Connections through the link that have sent `LISTEN` and are not silenced. */
  listening(): number;
  /**
   * From now on, nothing passes either way on the connections that sent `LISTEN`, and neither side is told:
   * no close, no reset. Other connections go on as before, and so do new ones, LISTEN or not.
   */
  silenceListeners(): void;
  close(): Promise<void>;
}

/**
 * Starts a {@link PostgresLink} on 127.0.0.1 to the server of `databaseUrl`. Each connection is recognised as a
 * listener by the `LISTEN` statement it sends (the simple query protocol, as `pg` sends it).
 */
export async function startPostgresLink(databaseUrl: string): Promise<PostgresLink> {
  const target = new URL(databaseUrl);
  const links = new Set<{ client: Socket; server: Socket; listens: boolean; silent: boolean }>();
  const proxy = createServer((client) => {
    const server = connect(Number(target.port || 5432), target.hostname);
    const link = { client, server, listens: false, silent: false };
    links.add(link);
    client.on('data', (chunk: Buffer) => {
      if (/\blisten\s/i.test(chunk.toString('latin1'))) link.listens = true;
      if (!link.silent) server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (!link.silent) client.write(chunk);
    });
    const end = () => {
      links.delete(link);
      client.destroy();
      server.destroy();
    };
    client.on('close', end).on('error', end);
    server.on('close', end).on('error', end);
  });
  proxy.listen(0, '127.0.0.1');
  await once(proxy, 'listening');
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((proxy.address() as AddressInfo).port);
  return {
    url: url.toString(),
    listening: () => [...links].filter((link) => link.listens && !link.silent).length,
    silenceListeners() {
      for (const link of links) if (link.listens) link.silent = true;
    },
    async close() {
      for (const link of links) {
        link.client.destroy();
        link.server.destroy();
      }
      proxy.close();
      await once(proxy, 'close');
    },
  };
}
