import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/core';
import type { Pool, PoolClient } from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { startMetricsServer } from './metrics.js';

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');

/** The value of `name{driver="postgresql"}`, or undefined when the line is absent. */
function pool(text: string, name: string): number | undefined {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}{driver="postgresql"}`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

/*
 * The database pool as Prometheus sees it, on a real PostgreSQL: the `pg` pool under MikroORM's Kysely dialect
 * (ormOptions: at most 10 connections). The test holds every connection itself, the way ten slow queries would,
 * so a request has to wait for one.
 */
describe('database pool metrics on PostgreSQL', () => {
  let api: TestApp;
  let server: Server;
  let url: string;
  let native: Pool;

  beforeAll(async () => {
    api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
    // Readiness also waits for the issuer's keys.
    await api.waitForIssuer();
    native = (await api.app.get(MikroORM).em.getConnection().getNativeClient()) as Pool;
    server = await startMetricsServer(0, '127.0.0.1');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await api?.close();
  });

  const scrape = async () => (await fetch(url)).text();

  it('reports open, idle and waiting connections and the maximum, and a request queued on a full pool', async () => {
    const ready = await api.request({ url: '/api/health/ready' });
    expect(ready.statusCode).toBe(200);
    const idle = await scrape();
    expect(pool(idle, 'atrium_db_pool_max_connections')).toBe(10);
    expect(pool(idle, 'atrium_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(pool(idle, 'atrium_db_pool_idle_connections')).toBe(pool(idle, 'atrium_db_pool_connections'));
    expect(pool(idle, 'atrium_db_pool_waiting_requests')).toBe(0);

    const held: PoolClient[] = [];
    try {
      for (let index = 0; index < 10; index += 1) held.push(await native.connect());
      // The readiness check runs `select 1`: with every connection taken it waits in the pool's queue.
      const queued = api.request({ url: '/api/health/ready' });
      const deadline = Date.now() + 5_000;
      let full = await scrape();
      while (pool(full, 'atrium_db_pool_waiting_requests') === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        full = await scrape();
      }
      expect(pool(full, 'atrium_db_pool_connections')).toBe(10);
      expect(pool(full, 'atrium_db_pool_idle_connections')).toBe(0);
      expect(pool(full, 'atrium_db_pool_waiting_requests')).toBe(1);
      for (const client of held.splice(0)) client.release();
      expect((await queued).statusCode).toBe(200);
    } finally {
      for (const client of held) client.release();
    }
    const after = await scrape();
    expect(pool(after, 'atrium_db_pool_waiting_requests')).toBe(0);
    expect(pool(after, 'atrium_db_pool_idle_connections')).toBe(pool(after, 'atrium_db_pool_connections'));
  });
});
