import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { adminQuery, databaseUrlFor, fetchDeployerToken } from '../../test/integration-context.js';
import { releaseHashes } from '../../test/release-hashes.js';
import { migrateDatabase } from './migrate-database.js';

const issuer = inject('oidcIssuerUrl');
const adminUrl = inject('postgresAdminUrl');

describe('when PostgreSQL goes away', () => {
  // A database of its own that the test drops (with its sessions) and recreates: a real, deterministic outage.
  const name = `atrium_it_outage_${randomBytes(4).toString('hex')}`;
  const databaseUrl = databaseUrlFor(adminUrl, name);
  let api: TestApp;
  let token: string;

  beforeAll(async () => {
    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
    await api.waitForIssuer();
    token = await fetchDeployerToken(issuer);
  });

  afterAll(async () => {
    await api?.close();
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  it('answers 503 database_unavailable while it is gone, stays up, and recovers without a restart', async () => {
    expect((await api.request({ url: '/api/me', token })).statusCode).toBe(200);

    await adminQuery(adminUrl, `DROP DATABASE ${name} WITH (FORCE)`);

    for (const request of [
      { url: '/api/me' },
      { method: 'PUT' as const, url: '/api/me/preferences', body: { theme: 'light' } },
      { url: '/api/remotes' },
      {
        method: 'POST' as const,
        url: '/api/remotes/outage/versions',
        body: {
          version: '1.0.0',
          manifestUrl: 'http://localhost:4100/outage/1.0.0/mf-manifest.json',
          ...releaseHashes('outage', '1.0.0'),
        },
      },
    ]) {
      const response = await api.request({ ...request, token });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.json()).toMatchObject({ code: 'database_unavailable', status: 503 });
    }
    const ready = await api.request({ url: '/api/health/ready' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ status: 'not_ready', checks: { database: 'down', issuer: 'up' } });
    expect((await api.request({ url: '/api/health/live' })).statusCode).toBe(200);

    await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
    await migrateDatabase(api.config.database);

    const back = await api.request({ url: '/api/me', token });
    expect(back.statusCode).toBe(200);
    // Nothing was half-written during the outage, and writes work again.
    expect((await api.request({ url: '/api/remotes', token })).json()).toEqual({ remotes: [] });
    expect((await api.request({ url: '/api/health/ready' })).statusCode).toBe(200);
  });
});
