import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '../../test/local-issuer.js';
import { devOverrideOriginAllowed } from './dev-override-rules.js';

interface AuditBody {
  items: Array<{ actor: string; action: string; target: string; details: Record<string, unknown> }>;
}

describe('POST /api/dev-overrides', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let apiWithoutOverrides: TestApp;
  let developer: string;
  let alice: string;
  let admin: string;
  const person = (username: string, roles: string[]) =>
    issuer.mint({
      claims: { sub: username, preferred_username: username, azp: 'atrium-shell', realm_access: { roles } },
    });
  const devServer = 'http://localhost:5001/mf-manifest.json';
  const activate = (token: string, body: unknown, app = api) =>
    app.request({ method: 'POST', url: '/api/dev-overrides', token, body });

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer.issuer,
      DEV_OVERRIDE_ORIGINS: 'http://localhost:*,http://127.0.0.1:*',
    });
    apiWithoutOverrides = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
    await apiWithoutOverrides.waitForIssuer();
    developer = await person('ada', ['atrium-user', 'atrium-admin', 'atrium-developer']);
    alice = await person('alice', ['atrium-user']);
    admin = await person('root', ['atrium-user', 'atrium-admin']);
  });
  afterAll(async () => {
    await api?.close();
    await apiWithoutOverrides?.close();
    await issuer?.close();
  });

  it('records a developer loading a remote from a local dev server in the audit log', async () => {
    const response = await activate(developer, { remote: 'profile', url: devServer });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ remote: 'profile', url: devServer, actor: 'ada' });
    const audit = (await api.request({ url: '/api/audit?pageSize=1', token: admin })).json<AuditBody>();
    expect(audit.items[0]).toMatchObject({
      actor: 'ada',
      action: 'dev.override.activated',
      target: `profile@${devServer}`,
      details: { remote: 'profile', url: devServer },
    });
  });

  it('refuses someone without the developer role, even an administrator, as problem+json', async () => {
    for (const token of [alice, admin]) {
      const response = await activate(token, { remote: 'profile', url: devServer });
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ code: 'insufficient_scope' });
    }
  });

  it("refuses a developer a dev server on an origin it does not allow (an attacker's link)", async () => {
    for (const url of [
      'https://evil.example/remoteEntry.js',
      'http://localhost.evil.example:5001/remoteEntry.js',
      'https://localhost:5001/remoteEntry.js',
    ]) {
      const response = await activate(developer, { remote: 'profile', url });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'dev_override_refused' });
    }
    const audit = (await api.request({ url: '/api/audit?pageSize=5', token: admin })).json<AuditBody>();
    expect(audit.items.map((item) => item.details.url)).not.toContain('https://evil.example/remoteEntry.js');
  });

  it('is off where DEV_OVERRIDE_ORIGINS is not set (production unless configured)', async () => {
    const response = await activate(developer, { remote: 'profile', url: devServer }, apiWithoutOverrides);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({
      code: 'dev_override_refused',
      detail: expect.stringContaining('off on this deployment') as unknown,
    });
  });

  it('names what is wrong with a bad body', async () => {
    const response = await activate(developer, { remote: 'Profile', url: 'http://localhost:5001/app.js' });
    expect(response.statusCode).toBe(400);
    const fields = response.json<{ errors: Array<{ field: string }> }>().errors.map((error) => error.field);
    expect(fields.sort()).toEqual(['remote', 'url']);
  });
});

describe('devOverrideOriginAllowed', () => {
  it('allows any port of a host with :*, one port otherwise, and nothing that only looks alike', () => {
    const patterns = ['http://localhost:*', 'https://dev.example.com:8443'];
    expect(devOverrideOriginAllowed('http://localhost:5001/remoteEntry.js', patterns)).toBe(true);
    expect(devOverrideOriginAllowed('http://localhost/remoteEntry.js', patterns)).toBe(true);
    expect(devOverrideOriginAllowed('https://dev.example.com:8443/x/remoteEntry.js', patterns)).toBe(true);
    expect(devOverrideOriginAllowed('https://dev.example.com/remoteEntry.js', patterns)).toBe(false);
    expect(devOverrideOriginAllowed('https://localhost:5001/remoteEntry.js', patterns)).toBe(false);
    expect(devOverrideOriginAllowed('http://localhost.evil.example/remoteEntry.js', patterns)).toBe(false);
    expect(devOverrideOriginAllowed('http://user@localhost:5001/remoteEntry.js', [])).toBe(false);
  });
});
