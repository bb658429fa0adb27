import { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { AccountAccess } from './account-access.entity.js';

/*
 * What the API checks itself before Keycloak is asked anything, with locally minted tokens; Keycloak's side
 * (the code, the person's token, the account API) is in account.int-spec.ts.
 */
describe('/api/account on SQLite, before Keycloak is asked', () => {
  const SHELL_PAGE = 'http://localhost:4000/auth/account-access';
  let issuer: LocalIssuer;
  let api: TestApp;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const person = (sub: string, sid: string) => issuer.mint({ claims: { sub, sid }, expiresIn: '1h' });
  const accessRequest = async (token: string) => {
    const response = await api.request({
      method: 'POST',
      url: '/api/account/access-request',
      token,
      body: { redirectUri: SHELL_PAGE },
    });
    expect(response.statusCode).toBe(200);
    return new URL(response.json<{ authorizationUrl: string }>().authorizationUrl);
  };
  const grant = (token: string, state: string) =>
    api.request({ method: 'POST', url: '/api/account/access', token, body: { code: 'a-code', state } });
  const storedAccess = () => api.app.get(MikroORM).em.fork().count(AccountAccess, {});

  it("asks Keycloak for the API's client, code flow with PKCE, back to the shell's page", async () => {
    const url = await accessRequest(await person('alice-sub', 'alice-session'));
    expect(`${url.origin}${url.pathname}`).toBe(`${issuer.issuer}/protocol/openid-connect/auth`);
    const { state, code_challenge: challenge, ...rest } = Object.fromEntries(url.searchParams);
    expect(rest).toEqual({
      client_id: 'atrium-account-admin',
      response_type: 'code',
      redirect_uri: SHELL_PAGE,
      code_challenge_method: 'S256',
    });
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(state).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    // The state is sealed: whoever sees it learns neither who asked nor the PKCE verifier.
    expect(url.searchParams.get('state')).not.toMatch(/alice|session|verifier/);
  });

  it("sends the answer only to a page of the shell's origin", async () => {
    const token = await person('alice-sub', 'alice-session');
    for (const redirectUri of [
      'https://evil.test/auth/account-access',
      `${SHELL_PAGE}?next=x`,
      'not a url',
    ]) {
      const response = await api.request({
        method: 'POST',
        url: '/api/account/access-request',
        token,
        body: { redirectUri },
      });
      expect(response.statusCode, redirectUri).toBe(400);
      expect(response.json<{ code: string }>().code).toBe('validation_failed');
    }
  });

  it('refuses an answer meant for another person or session, altered, or too late, and keeps nothing', async () => {
    const victim = await person('victim-sub', 'victim-session');
    const attackerState = (
      await accessRequest(await person('attacker-sub', 'attacker-session'))
    ).searchParams.get('state')!;
    const otherSessionState = (
      await accessRequest(await person('victim-sub', 'other-session'))
    ).searchParams.get('state')!;
    const ownState = (await accessRequest(victim)).searchParams.get('state')!;
    const altered = `${ownState.slice(0, -2)}${ownState.endsWith('AA') ? 'AB' : 'AA'}`;
    for (const state of [attackerState, otherSessionState, altered, 'made-up']) {
      const response = await grant(victim, state);
      expect(response.statusCode).toBe(403);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json<{ code: string }>().code).toBe('account_access_required');
    }
    // Ten minutes later the person's own state has expired as well.
    const now = Date.now();
    vi.spyOn(Date, 'now').mockReturnValue(now + 601_000);
    try {
      expect((await grant(victim, ownState)).json<{ code: string }>().code).toBe('account_access_required');
    } finally {
      vi.restoreAllMocks();
    }
    expect(await storedAccess()).toBe(0);
  });

  it("answers account_access_required while the caller's session has given the API no token", async () => {
    const token = await person('bob-sub', 'bob-session');
    for (const [method, url] of [
      ['GET', '/api/account/sessions'],
      ['GET', '/api/account/credentials'],
      ['POST', '/api/account/sessions/sign-out-others'],
    ] as const) {
      const response = await api.request({ method, url, token });
      expect(response.statusCode, url).toBe(403);
      const problem = response.json<{ code: string; detail: string }>();
      expect(problem.code).toBe('account_access_required');
      expect(problem.detail).toContain('Continue at Keycloak');
    }
  });

  it('serves people of the shell only, never a machine client', async () => {
    const machine = await issuer.mint({ claims: { sub: 'service-account', azp: 'atrium-deployer' } });
    for (const [method, url, body] of [
      ['POST', '/api/account/access-request', { redirectUri: SHELL_PAGE }],
      ['POST', '/api/account/access', { code: 'c', state: 's' }],
      ['GET', '/api/account/sessions', undefined],
    ] as const) {
      const response = await api.request({ method, url, token: machine, ...(body ? { body } : {}) });
      expect(response.statusCode, url).toBe(403);
      expect(response.json<{ code: string }>().code).toBe('personal_session_required');
    }
  });
});
