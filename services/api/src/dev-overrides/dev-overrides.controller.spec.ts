import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { ADMIN_ROLE, DEVELOPER_ROLE } from '../auth/index.js';
import {
  devOverrideOriginAllowed,
  overriddenRemoteProblem,
  platformOriginProblem,
} from './dev-override-rules.js';

interface AuditBody {
  items: Array<{ actor: string; action: string; target: string; details: Record<string, unknown> }>;
}
interface ApprovalsBody {
  overrides: Array<{ remote: string; url: string; actor: string }>;
}

describe('/api/dev-overrides', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let apiWithoutOverrides: TestApp;
  let developer: string;
  /** The same developer in another sign-in session (another browser, or after signing in again). */
  let developerElsewhere: string;
  let developerWithoutSession: string;
  let alice: string;
  let admin: string;
  const person = (username: string, roles: string[], sid?: string) =>
    issuer.mint({
      claims: {
        sub: username,
        preferred_username: username,
        azp: 'atrium-shell',
        realm_access: { roles },
        ...(sid === undefined ? {} : { sid }),
      },
    });
  const devServer = 'http://localhost:5001/mf-manifest.json';
  const activate = (token: string, body: unknown, app = api) =>
    app.request({ method: 'POST', url: '/api/dev-overrides', token, body });
  const approvals = async (token: string) =>
    (await api.request({ url: '/api/dev-overrides', token })).json<ApprovalsBody>().overrides;
  const reset = (token: string) => api.request({ method: 'DELETE', url: '/api/dev-overrides', token });
  const latestAudit = async (count: number) =>
    (await api.request({ url: `/api/audit?pageSize=${count}`, token: admin })).json<AuditBody>().items;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    // The local stack's ports: the API on 3000, the shell on 4000, the release store on 4100, Keycloak's realm
    // at the local issuer. `http://localhost:*` matches every one of them.
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer.issuer,
      DEV_OVERRIDE_ORIGINS: 'http://localhost:*,http://127.0.0.1:*',
    });
    apiWithoutOverrides = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
    await apiWithoutOverrides.waitForIssuer();
    const developerRoles = ['atrium-user', ADMIN_ROLE, DEVELOPER_ROLE];
    developer = await person('ada', developerRoles, 'session-1');
    developerElsewhere = await person('ada', developerRoles, 'session-2');
    developerWithoutSession = await person('ada', developerRoles);
    alice = await person('alice', ['atrium-user'], 'session-3');
    admin = await person('root', ['atrium-user', ADMIN_ROLE], 'session-4');
    for (const [name, requiredRoles] of [
      ['profile', []],
      ['admin', [ADMIN_ROLE]],
    ] as const) {
      const created = await api.request({
        method: 'POST',
        url: '/api/remotes',
        token: admin,
        body: { name, title: name, path: `/${name}`, owner: 'atrium-deployer', requiredRoles },
      });
      expect(created.statusCode).toBe(201);
    }
  });
  afterAll(async () => {
    await api?.close();
    await apiWithoutOverrides?.close();
    await issuer?.close();
  });

  it("approves a developer's dev server for her session only, recorded in the audit log", async () => {
    const response = await activate(developer, { remote: 'profile', url: devServer });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ remote: 'profile', url: devServer, actor: 'ada' });
    const [entry] = await latestAudit(1);
    expect(entry).toMatchObject({
      actor: 'ada',
      action: 'dev.override.activated',
      target: `profile@${devServer}`,
      details: { remote: 'profile', url: devServer, session: 'session-1' },
    });
    expect(await approvals(developer)).toEqual([
      expect.objectContaining({ remote: 'profile', url: devServer, actor: 'ada' }),
    ]);
    // The same person in another session has no approval: an override planted in that browser is not hers.
    expect(await approvals(developerElsewhere)).toEqual([]);
    expect(await approvals(developerWithoutSession)).toEqual([]);
  });

  it('keeps the newest approval per remote, and a reset withdraws all of them, audited', async () => {
    const other = 'http://localhost:5009/mf-manifest.json';
    expect((await activate(developer, { remote: 'profile', url: other })).statusCode).toBe(201);
    expect((await approvals(developer)).map((item) => item.url)).toEqual([other]);
    expect((await reset(developer)).statusCode).toBe(204);
    expect(await approvals(developer)).toEqual([]);
    expect(await latestAudit(1)).toEqual([
      expect.objectContaining({
        actor: 'ada',
        action: 'dev.override.reset',
        details: { session: 'session-1' },
      }),
    ]);
    expect((await activate(developer, { remote: 'profile', url: devServer })).statusCode).toBe(201);
    expect((await approvals(developer)).map((item) => item.url)).toEqual([devServer]);
  });

  it('refuses someone without the developer role, even an administrator, as problem+json', async () => {
    for (const token of [alice, admin]) {
      const response = await activate(token, { remote: 'profile', url: devServer });
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json()).toMatchObject({ code: 'insufficient_scope' });
      expect((await api.request({ url: '/api/dev-overrides', token })).statusCode).toBe(403);
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
    const audit = await latestAudit(5);
    expect(audit.map((item) => item.details.url)).not.toContain('https://evil.example/remoteEntry.js');
  });

  it("refuses the platform's own origins, though the allowed origins match them", async () => {
    for (const [origin, what] of [
      ['http://localhost:4100', 'the release store'],
      ['http://localhost:3000', 'the API'],
      ['http://localhost:4000', 'the shell'],
      [new URL(issuer.issuer).origin, 'the identity provider'],
    ] as const) {
      expect(devOverrideOriginAllowed(`${origin}/mf-manifest.json`, api.config.devOverrideOrigins)).toBe(
        true,
      );
      const response = await activate(developer, {
        remote: 'profile',
        url: `${origin}/profile/1.0.0/mf-manifest.json`,
      });
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({
        code: 'dev_override_refused',
        detail: `${origin} is ${what}'s origin, which no dev override loads from.`,
      });
    }
  });

  it('refuses to replace a remote only administrators may see, or one that is not registered', async () => {
    const admins = await activate(developer, {
      remote: 'admin',
      url: 'http://localhost:5002/mf-manifest.json',
    });
    expect(admins.statusCode).toBe(403);
    expect(admins.json()).toMatchObject({
      code: 'dev_override_refused',
      detail: 'admin is a remote only administrators may see, which no dev override replaces.',
    });
    const unknown = await activate(developer, { remote: 'nothere', url: devServer });
    expect(unknown.json()).toMatchObject({
      code: 'dev_override_refused',
      detail: 'no remote named nothere is registered.',
    });
    expect((await approvals(developer)).map((item) => item.remote)).toEqual(['profile']);
  });

  it('refuses a token without a sign-in session, which no approval could be bound to', async () => {
    const response = await activate(developerWithoutSession, { remote: 'profile', url: devServer });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({
      code: 'dev_override_refused',
      detail: expect.stringContaining('no sign-in session') as unknown,
    });
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

describe('the dev-override rules', () => {
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

  it("names the platform's origin a URL is on, by origin, not by prefix or host", () => {
    const platform = {
      'the release store': ['https://releases.example/'],
      'the API': ['https://api.example'],
    };
    expect(platformOriginProblem('https://releases.example/profile/1.0.0/mf-manifest.json', platform)).toBe(
      "https://releases.example is the release store's origin, which no dev override loads from",
    );
    expect(platformOriginProblem('https://api.example:443/x/remoteEntry.js', platform)).toMatch(/the API's/);
    for (const url of [
      'http://releases.example/mf-manifest.json',
      'https://releases.example.evil/x',
      'nonsense',
    ]) {
      expect(platformOriginProblem(url, platform)).toBeUndefined();
    }
  });

  it('refuses to replace a remote whose required roles include the administrator role', () => {
    expect(overriddenRemoteProblem('admin', ['atrium-user', ADMIN_ROLE], ADMIN_ROLE)).toMatch(
      /only administrators/,
    );
    expect(overriddenRemoteProblem('profile', ['atrium-user'], ADMIN_ROLE)).toBeUndefined();
  });
});
