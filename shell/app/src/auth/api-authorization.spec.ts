// @vitest-environment happy-dom
/// <reference types="node" />
import { ApiRouteRefusedError, createApiClient, type ApiClient } from '@atrium/sdk';
import { base64url, EmbeddedJWK, jwtVerify, type JWK, calculateJwkThumbprint } from 'jose';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  clientForRemotes,
  createApiAuthorization,
  createShellApiClient,
  IdentityProviderUnreachableError,
  SessionEndedError,
} from './api-authorization';
import type { SharedUserManager } from './shared-user-manager';
import { clearOriginStorage, fakeKeycloak, openSignedInTab } from './testing/fake-keycloak';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

let keycloak: ReturnType<typeof fakeKeycloak>;
let userManager: SharedUserManager;
let api: ApiClient;
let keyThumbprint: string;

const hashOf = async (token: string) =>
  base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))));

interface Checked {
  readonly token: string;
  readonly htm: unknown;
  readonly htu: unknown;
  /** The proof's `ath` is the hash of the token it came with. */
  readonly athMatches: boolean;
  /** The proof is signed with the key the session's tokens are bound to. */
  readonly signedWithSessionKey: boolean;
}

/** The checks a DPoP-verifying API makes, reported instead of enforced so the test can name each one. */
async function check(request: Request): Promise<Checked> {
  const token = (request.headers.get('Authorization') ?? '').replace(/^DPoP /, '');
  const { payload, protectedHeader } = await jwtVerify(request.headers.get('DPoP') ?? '', EmbeddedJWK, {
    typ: 'dpop+jwt',
    algorithms: ['ES256'],
  });
  return {
    token,
    htm: payload.htm,
    htu: payload.htu,
    athMatches: payload.ath === (await hashOf(token)),
    signedWithSessionKey: (await calculateJwkThumbprint(protectedHeader.jwk as JWK)) === keyThumbprint,
  };
}

beforeEach(async () => {
  keycloak = fakeKeycloak();
  server.use(...keycloak.handlers);
  ({ userManager, keyThumbprint } = await openSignedInTab(keycloak));
  api = createApiClient({ baseUrl: keycloak.config.apiBaseUrl, ...createApiAuthorization(userManager) });
});

afterEach(() => {
  userManager.close();
  server.resetHandlers();
  clearOriginStorage();
});

describe('createApiAuthorization', () => {
  it('authorises each request with the session token and a proof for its method and URL, signed with the session key', async () => {
    server.use(
      http.post(`${keycloak.config.apiBaseUrl}/api/things/7`, async ({ request }) =>
        HttpResponse.json(await check(request)),
      ),
    );

    const checked = await api.post<Checked>('/api/things/7?draft=true', { name: 'x' });

    expect(checked).toEqual({
      token: 'at-0',
      htm: 'POST',
      htu: `${keycloak.config.apiBaseUrl}/api/things/7`,
      athMatches: true,
      signedWithSessionKey: true,
    });
  });

  it('renews a token that is about to expire before using it, and proves the new one', async () => {
    const user = await userManager.getUser();
    user!.expires_at = Math.floor(Date.now() / 1000) + 5;
    await userManager.storeUser(user);
    server.use(
      http.get(`${keycloak.config.apiBaseUrl}/api/me`, async ({ request }) =>
        HttpResponse.json(await check(request)),
      ),
    );

    const checked = await api.get<Checked>('/api/me');

    expect(keycloak.requests.map((request) => request.outcome)).toEqual(['issued']);
    expect(checked).toMatchObject({ token: 'at-1', athMatches: true, signedWithSessionKey: true });
  });

  it('ends the session and sends nothing when the refresh token is refused', async () => {
    const user = await userManager.getUser();
    user!.expires_at = Math.floor(Date.now() / 1000) + 5;
    user!.refresh_token = 'rt-spent';
    await userManager.storeUser(user);
    const sent: string[] = [];
    server.use(
      http.get(`${keycloak.config.apiBaseUrl}/api/me`, ({ request }) => {
        sent.push(request.url);
        return HttpResponse.json({});
      }),
    );

    await expect(api.get('/api/me')).rejects.toBeInstanceOf(SessionEndedError);
    expect(sent).toEqual([]);
    expect(await userManager.getUser()).toBeNull();
  });

  it('keeps the session when Keycloak does not answer the renewal: only this request fails, in words', async () => {
    const user = await userManager.getUser();
    user!.expires_at = Math.floor(Date.now() / 1000) + 5;
    await userManager.storeUser(user);
    keycloak.setDown(true);
    const sent: string[] = [];
    server.use(
      http.get(`${keycloak.config.apiBaseUrl}/api/me`, ({ request }) => {
        sent.push(request.url);
        return HttpResponse.json({});
      }),
    );

    const attempt = api.get('/api/me');

    await expect(attempt).rejects.toBeInstanceOf(IdentityProviderUnreachableError);
    await expect(attempt).rejects.toThrow("Can't reach the sign-in service");
    expect(sent).toEqual([]);
    expect(await userManager.getUser()).toMatchObject({ refresh_token: 'rt-0' });
  });
});

describe('clientForRemotes', () => {
  it("refuses a remote's code that reports telemetry, approves a dev override or takes account access with the person's session, however it spells the route", async () => {
    const sent: string[] = [];
    server.use(
      http.all(`${keycloak.config.apiBaseUrl}/api/*`, ({ request }) => {
        sent.push(`${request.method} ${new URL(request.url).pathname}`);
        return HttpResponse.json({ accepted: 1, ignored: 0 }, { status: 202 });
      }),
    );
    const shell = createShellApiClient(keycloak.config.apiBaseUrl, userManager);
    const remote = clientForRemotes(shell);
    const forged = { reports: [{ remote: 'admin', version: '1.0.0', failures: { download: 20 } }] };
    const attempts = [
      () => remote.post('/api/telemetry', forged),
      () => remote.post('/api/Telemetry/', forged),
      () => remote.post('/api//%74elemetry', forged),
      () => remote.post(`${keycloak.config.apiBaseUrl}/api/telemetry`, forged),
      () => remote.POST('/api/telemetry', { body: forged as never }),
      () =>
        remote.post('/api/dev-overrides', {
          remote: 'profile',
          url: 'http://localhost:5001/mf-manifest.json',
        }),
      () => remote.request('DELETE', '/api/dev-overrides'),
      () =>
        remote.post('/api/account/access-request', {
          redirectUri: 'http://localhost:4000/auth/account-access',
        }),
      () => remote.post('/api/account/access', { code: 'c', state: 's' }),
    ];
    for (const attempt of attempts) {
      await expect(attempt()).rejects.toBeInstanceOf(ApiRouteRefusedError);
    }
    expect(sent).toEqual([]);
    // The person keeps working: the remote's own calls go, and the shell's client still reports.
    await remote.get('/api/me');
    await shell.post('/api/telemetry', { reports: [] });
    expect(sent).toEqual(['GET /api/me', 'POST /api/telemetry']);
  });
});
