import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { RegistryService } from '../../registry/index.js';
import { captureLogLines } from '@atrium/test-support/logs';

/*
 * Every line the API writes while it handles a request names that request, whatever answers it: success,
 * refusals, the framework's own errors (a body that is not JSON, too large, a path the router cannot decode)
 * and an unexpected error with its stack. Over a real socket on 127.0.0.1, with Nest's and the services' own
 * lines on, at the production log level.
 */
describe('request ids on every log line', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let base: string;
  const { lines, destination } = captureLogLines();

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp(
      { OIDC_ISSUER_URL: issuer.issuer, LOG_LEVEL: 'log' },
      { logDestination: destination, nestLogs: true },
    );
    await api.waitForIssuer();
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  it('names the request on each line, errors included, and only requests that were made', async () => {
    const token = await issuer.mint();
    const registry = api.app.get(RegistryService);
    const listForUser = registry.listForUser.bind(registry);
    const ids: string[] = [];
    const send = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${base}${path}`, init);
      const id = response.headers.get('x-request-id');
      expect(id).toBeTruthy();
      ids.push(id!);
      return { status: response.status, id: id! };
    };
    const json = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
    const from = lines.length;

    expect((await send('/api/health/live')).status).toBe(200);
    expect((await send('/api/remotes')).status).toBe(401);
    expect((await send('/api/remotes', { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    expect(
      (await send('/api/me/preferences', { method: 'PUT', headers: json, body: '{"theme":' })).status,
    ).toBe(400);
    const huge = JSON.stringify({ reports: 'x'.repeat(70 * 1024) });
    expect((await send('/api/telemetry', { method: 'POST', headers: json, body: huge })).status).toBe(413);
    // A path the router cannot decode: answered before any route or hook (create-app.ts, frameworkErrors).
    expect((await send('/api/remotes/%E0%A4%A')).status).toBe(400);
    expect((await send('/api/nowhere')).status).toBe(404);
    // Something the code did not expect: a 500, whose stack goes to the log.
    registry.listForUser = () => Promise.reject(new Error('the registry fell over'));
    let failed: { status: number; id: string };
    try {
      failed = await send('/api/remotes', { headers: { authorization: `Bearer ${token}` } });
    } finally {
      registry.listForUser = listForUser;
    }
    expect(failed.status).toBe(500);
    await new Promise((resolve) => setImmediate(resolve));

    const written = lines.slice(from);
    // Each request's two lines, whichever part of the API refused it (the router's own refusals too).
    for (const message of ['incoming request', 'request completed']) {
      expect(written.filter((line) => line['msg'] === message).map((line) => line['requestId'])).toEqual(ids);
    }
    const unnamed = written.filter((line) => typeof line['requestId'] !== 'string');
    expect(unnamed).toEqual([]);
    expect(new Set(written.map((line) => line['requestId']))).toEqual(new Set(ids));
    const error = written.find((line) => line['level'] === 50);
    expect(error).toMatchObject({ requestId: failed.id, context: 'ProblemFilter' });
    expect(String(error?.['stack'])).toContain('the registry fell over');
  });
});
