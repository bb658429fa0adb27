import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { REGISTRY_LISTENER_NAME } from './active-remotes.js';
import { adminQuery, countRows, databaseUrlFor, startPostgresLink } from '@atrium/test-support/postgres';
import { fetchPlatformToken } from '@atrium/test-support/keycloak';
import { releaseHashes } from '@atrium/test-support/releases';

const issuer = inject('oidcIssuerUrl');
const adminUrl = inject('postgresAdminUrl');

describe('two replicas on PostgreSQL keep their in-memory registry current', () => {
  const name = `atrium_it_registry_${randomBytes(4).toString('hex')}`;
  const databaseUrl = databaseUrlFor(adminUrl, name);
  let a: TestApp;
  let b: TestApp;
  let platform: string;

  beforeAll(async () => {
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    a = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
    b = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
    await Promise.all([a.waitForIssuer(), b.waitForIssuer()]);
    platform = await fetchPlatformToken(issuer);
    const created = await a.request({
      method: 'POST',
      url: '/api/remotes',
      token: platform,
      body: { name: 'shared', title: 'Shared', path: '/shared', owner: 'atrium-platform' },
    });
    expect(created.statusCode).toBe(201);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  const publish = async (api: TestApp, version: string) => {
    const response = await api.request({
      method: 'POST',
      url: '/api/remotes/shared/versions',
      token: platform,
      body: {
        version,
        manifestUrl: `http://localhost:4100/shared/${version}/mf-manifest.json`,
        ...releaseHashes('shared', version),
        activate: true,
      },
    });
    expect(response.statusCode).toBe(201);
  };
  const activeOn = async (api: TestApp) =>
    (await api.request({ url: '/api/remotes', token: platform }))
      .json<{ remotes: Array<{ version: string }> }>()
      .remotes.map((remote) => remote.version);
  /** The server process of each replica's LISTEN connection. */
  const listeners = () =>
    countRows(
      adminUrl,
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = '${name}' AND application_name = '${REGISTRY_LISTENER_NAME}'`,
    );

  it("shows one replica's activation on the other at once, and a 304 for the other's ETag", async () => {
    await publish(a, '1.0.0');
    expect(await activeOn(b)).toEqual(['1.0.0']);

    await publish(a, '1.1.0');
    // Notified at commit: no wait for a timer.
    await expect.poll(() => activeOn(b), { timeout: 2_000, interval: 20 }).toEqual(['1.1.0']);

    const fromA = await a.request({ url: '/api/remotes', token: platform });
    const fromB = await b.request({
      url: '/api/remotes',
      token: platform,
      headers: { 'if-none-match': String(fromA.headers['etag']) },
    });
    expect(fromB.statusCode).toBe(304);
  });

  it('listens again after its connection is cut, and misses nothing meanwhile', async () => {
    expect(await listeners()).toBe(2);
    await adminQuery(
      adminUrl,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND application_name = '${REGISTRY_LISTENER_NAME}'`,
    );
    await publish(a, '1.2.0');
    // Whether B notices the cut before or after this change, it reads the database until it listens again.
    await expect.poll(() => activeOn(b), { timeout: 2_000, interval: 20 }).toEqual(['1.2.0']);
    await expect.poll(listeners, { timeout: 10_000 }).toBe(2);

    await publish(a, '1.3.0');
    await expect.poll(() => activeOn(b), { timeout: 2_000, interval: 20 }).toEqual(['1.3.0']);
  });

  it('serves a change within a second when its listening connection falls silent unnoticed, then listens anew', async () => {
    // A third replica reaching PostgreSQL through a link that can go silent, as a cut network does: no close,
    // no reset, nothing for either side to notice.
    const link = await startPostgresLink(databaseUrl);
    const c = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: link.url }, { migrate: false });
    try {
      await c.waitForIssuer();
      await expect.poll(() => link.listening(), { timeout: 10_000 }).toBe(1);
      await publish(a, '2.0.0');
      await expect.poll(() => activeOn(c), { timeout: 2_000, interval: 20 }).toEqual(['2.0.0']);
      // Its copy, made once the notification of 2.0.0 is surely in (a notification can trail the commit).
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await activeOn(c)).toEqual(['2.0.0']);

      link.silenceListeners();
      await publish(a, '2.1.0');
      const committed = Date.now();
      // Before the heartbeat, this replica served its copy for up to 30 s (its MAX_AGE_MS).
      await expect.poll(() => activeOn(c), { timeout: 5_000, interval: 20 }).toEqual(['2.1.0']);
      console.log(`registry_change_seen_silent_ms=${Date.now() - committed}`);

      // Given up after its silence, the connection is opened again, and changes arrive by notification again.
      await expect.poll(() => link.listening(), { timeout: 20_000 }).toBe(1);
      await publish(a, '2.2.0');
      await expect.poll(() => activeOn(c), { timeout: 2_000, interval: 20 }).toEqual(['2.2.0']);
    } finally {
      await c.close();
      await link.close();
    }
  });
});
