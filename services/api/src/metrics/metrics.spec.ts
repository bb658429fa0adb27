import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { startMetricsServer } from './metrics.js';

/** The value of one sample line (`name{labels} value`), or 0 when absent. */
function sample(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((entry) => entry.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('Prometheus metrics', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
    server = await startMetricsServer(0, '127.0.0.1');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await api?.close();
    await issuer?.close();
  });

  const scrape = async () => (await fetch(url)).text();

  it('counts requests by route template and status, credential refusals by reason, and JWKS fetches', async () => {
    const before = await scrape();
    const token = await issuer.mint();
    expect((await api.request({ url: '/api/remotes', token })).statusCode).toBe(200);
    expect((await api.request({ url: '/api/remotes' })).statusCode).toBe(401);
    expect((await api.request({ url: '/api/remotes', token: `${token}x` })).statusCode).toBe(401);
    expect((await api.request({ url: '/api/remotes/profile/versions', token })).statusCode).toBe(403);
    // Refused by the router before any route or hook: still counted.
    expect((await api.request({ url: '/api/remotes/%E0%A4%A' })).statusCode).toBe(400);
    const after = await scrape();

    const count = (text: string, labels: string) =>
      sample(text, 'atrium_http_request_duration_seconds_count', labels);
    expect(count(after, 'method="GET",route="/api/remotes",status="200"')).toBe(
      count(before, 'method="GET",route="/api/remotes",status="200"') + 1,
    );
    // The route template, never the raw path: the label set stays bounded.
    expect(count(after, 'method="GET",route="/api/remotes/:name/versions",status="403"')).toBeGreaterThan(0);
    expect(after).not.toContain('route="/api/remotes/profile/versions"');
    expect(count(after, 'method="GET",route="unmatched",status="400"')).toBe(
      count(before, 'method="GET",route="unmatched",status="400"') + 1,
    );
    // Each request once, by the hook of its route or, with no route, as unmatched.
    const answered = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('atrium_http_request_duration_seconds_count{'))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    expect(answered(after)).toBe(answered(before) + 5);
    const rejections = (text: string, reason: string) =>
      sample(text, 'atrium_token_rejections_total', `reason="${reason}"`);
    expect(rejections(after, 'unauthenticated')).toBe(rejections(before, 'unauthenticated') + 1);
    expect(rejections(after, 'invalid_token')).toBe(rejections(before, 'invalid_token') + 1);
    expect(sample(after, 'atrium_jwks_fetches_total', 'outcome="ok"')).toBeGreaterThan(0);
    expect(after).toContain('atrium_api_process_cpu_seconds_total');
  });

  it('counts CORS preflights as preflight, what else no route matched as unmatched, and a HEAD request once under its route', async () => {
    const before = await scrape();
    expect((await api.request({ url: '/api/no-such-thing' })).statusCode).toBe(404);
    expect((await api.request({ method: 'OPTIONS', url: '/api/me' })).statusCode).toBe(404);
    const preflight = await api.request({
      method: 'OPTIONS',
      url: '/api/me',
      headers: { origin: 'http://localhost:4000', 'access-control-request-method': 'GET' },
    });
    expect(preflight.statusCode).toBe(204);
    // Fastify adds the HEAD route of a GET route from the GET route's options: the hook must not come twice.
    expect((await api.app.inject({ method: 'HEAD', url: '/api/health/live' })).statusCode).toBe(200);
    const after = await scrape();
    const count = (text: string, labels: string) =>
      sample(text, 'atrium_http_request_duration_seconds_count', labels);
    expect(count(after, 'method="GET",route="unmatched",status="404"')).toBe(
      count(before, 'method="GET",route="unmatched",status="404"') + 1,
    );
    expect(count(after, 'method="OPTIONS",route="unmatched",status="404"')).toBe(
      count(before, 'method="OPTIONS",route="unmatched",status="404"') + 1,
    );
    expect(count(after, 'method="OPTIONS",route="preflight",status="204"')).toBe(
      count(before, 'method="OPTIONS",route="preflight",status="204"') + 1,
    );
    expect(count(after, 'method="HEAD",route="/api/health/live",status="200"')).toBe(
      count(before, 'method="HEAD",route="/api/health/live",status="200"') + 1,
    );
    expect(after).not.toContain('route="/api/no-such-thing"');
  });

  it('reports the database pool: on SQLite one open connection of at most one, no pool counts', async () => {
    const text = await scrape();
    expect(sample(text, 'atrium_db_pool_connections', 'driver="sqlite"')).toBe(1);
    expect(sample(text, 'atrium_db_pool_max_connections', 'driver="sqlite"')).toBe(1);
    // better-sqlite3 has no pool: nothing is made up for idle connections or waiting queries.
    expect(text).not.toMatch(/atrium_db_pool_(idle_connections|waiting_requests)\{driver="sqlite"\}/);
    expect(text).toContain('# TYPE atrium_db_pool_waiting_requests gauge');
  });

  it('is served on its own port only: the API answers /metrics with 404', async () => {
    expect((await api.request({ url: '/metrics' })).statusCode).toBe(404);
    expect((await api.request({ url: '/api/metrics' })).statusCode).toBe(404);
    expect((await fetch(url.replace('/metrics', '/other'))).status).toBe(404);
  });
});
