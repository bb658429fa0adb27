/// <reference types="node" />
// happy-dom has no IndexedDB, where the shell keeps the user: fake-indexeddb stands in for the browser's.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { calculateJwkThumbprint, EmbeddedJWK, jwtVerify, type JWK } from 'jose';
import { http, HttpResponse } from 'msw';
import { User } from 'oidc-client-ts';
import { locks } from 'node:worker_threads';
import type { RuntimeConfig } from '../../config/runtime-config';
import { createUserManager, type DPoPStore } from '../oidc';

/** One token request as the fake Keycloak saw it. */
export interface TokenRequest {
  readonly refreshToken: string;
  /** Thumbprint of the key that signed the request's DPoP proof, once the proof checked out. */
  readonly keyThumbprint: string;
  readonly outcome: 'issued' | 'refused';
}

export const unsignedJwt = (claims: object) =>
  `${btoa(JSON.stringify({ alg: 'none' }))}.${btoa(JSON.stringify(claims))}.`.replace(/=/g, '');

/**
 * A token endpoint that rotates refresh tokens like the atrium realm (`revokeRefreshToken`,
 * `refreshTokenMaxReuse: 0`): each refresh token works once, and only with a DPoP proof for the token endpoint.
 * Runs on the test page's own origin so happy-dom's fetch needs no CORS.
 */
export function fakeKeycloak(origin: string = window.location.origin) {
  const issuer = `${origin}/realms/atrium`;
  const tokenEndpoint = `${issuer}/protocol/openid-connect/token`;
  const requests: TokenRequest[] = [];
  const unused = new Set<string>();
  let issued = 0;
  let down = false;
  let sessionEnded = false;
  let userinfoCalls = 0;
  const userinfoEndpoint = `${issuer}/protocol/openid-connect/userinfo`;

  const config: RuntimeConfig = {
    oidc: {
      authority: issuer,
      clientId: 'atrium-shell',
      redirectPath: '/auth/callback',
      postLogoutPath: '/',
    },
    apiBaseUrl: origin,
    remotesUrl: `${origin}/api/remotes`,
    remoteTimeoutMs: 10_000,
  };

  const handlers = [
    // While "down", every request fails as fetch fails when nothing answers.
    http.all(`${issuer}/*`, () => (down ? HttpResponse.error() : undefined)),
    http.get(`${issuer}/.well-known/openid-configuration`, () =>
      HttpResponse.json({
        issuer,
        authorization_endpoint: `${issuer}/protocol/openid-connect/auth`,
        token_endpoint: tokenEndpoint,
        userinfo_endpoint: userinfoEndpoint,
        end_session_endpoint: `${issuer}/protocol/openid-connect/logout`,
        jwks_uri: `${issuer}/protocol/openid-connect/certs`,
      }),
    ),
    // Like Keycloak: 401 once the user session is gone, whatever the token.
    http.get(userinfoEndpoint, ({ request }) => {
      userinfoCalls += 1;
      const authorization = request.headers.get('Authorization') ?? '';
      if (sessionEnded || !/^DPoP at-\d+$/.test(authorization) || !request.headers.get('DPoP')) {
        return HttpResponse.json({ error: 'invalid_token' }, { status: 401 });
      }
      return HttpResponse.json({ sub: 'alice-id' });
    }),
    http.post(tokenEndpoint, async ({ request }) => {
      const form = new URLSearchParams(await request.text());
      const refreshToken = form.get('refresh_token') ?? '';
      const { payload, protectedHeader } = await jwtVerify(request.headers.get('DPoP') ?? '', EmbeddedJWK, {
        typ: 'dpop+jwt',
      });
      if (payload.htm !== 'POST' || payload.htu !== tokenEndpoint) {
        return HttpResponse.json({ error: 'invalid_dpop_proof' }, { status: 400 });
      }
      const keyThumbprint = await calculateJwkThumbprint(protectedHeader.jwk as JWK);
      if (form.get('grant_type') !== 'refresh_token' || !unused.delete(refreshToken)) {
        requests.push({ refreshToken, keyThumbprint, outcome: 'refused' });
        return HttpResponse.json(
          { error: 'invalid_grant', error_description: 'Stale token' },
          { status: 400 },
        );
      }
      requests.push({ refreshToken, keyThumbprint, outcome: 'issued' });
      issued += 1;
      const next = `rt-${issued}`;
      unused.add(next);
      return HttpResponse.json({
        access_token: `at-${issued}`,
        refresh_token: next,
        token_type: 'DPoP',
        expires_in: 60,
        scope: 'openid profile email',
      });
    }),
  ];

  /** A signed-in user as the shell stores it after a code exchange, holding refresh token `rt-<session>`. */
  function signedInUser(session = '0'): User {
    unused.add(`rt-${session}`);
    const now = Math.floor(Date.now() / 1000);
    const profile = { iss: issuer, sub: 'alice-id', aud: 'atrium-shell', exp: now + 60, iat: now };
    return new User({
      access_token: `at-${session}`,
      refresh_token: `rt-${session}`,
      id_token: unsignedJwt(profile),
      token_type: 'DPoP',
      scope: 'openid profile email',
      expires_at: now + 60,
      profile,
    });
  }

  return {
    config,
    handlers,
    requests,
    tokenEndpoint,
    signedInUser,
    /** Stops (true) or restarts (false) answering anything. */
    setDown(value: boolean) {
      down = value;
    },
    /** Ends the user session, as an administrator or a sign-out on another device would. */
    endSession() {
      sessionEnded = true;
      unused.clear();
    },
    get userinfoCalls() {
      return userinfoCalls;
    },
  };
}

/** The DPoP key store the tabs of one origin share (IndexedDB in the browser). */
export class MemoryDPoPStore implements DPoPStore {
  readonly #entries = new Map<string, Awaited<ReturnType<DPoPStore['get']>>>();
  set(key: string, value: Awaited<ReturnType<DPoPStore['get']>>): Promise<void> {
    this.#entries.set(key, value);
    return Promise.resolve();
  }
  get(key: string): ReturnType<DPoPStore['get']> {
    return Promise.resolve(this.#entries.get(key)!);
  }
  remove(key: string): ReturnType<DPoPStore['remove']> {
    const value = this.#entries.get(key)!;
    this.#entries.delete(key);
    return Promise.resolve(value);
  }
  getAllKeys(): Promise<string[]> {
    return Promise.resolve([...this.#entries.keys()]);
  }
}

/**
 * A tab of the shell that signed in at `keycloak`: its UserManager (with Node's Web Locks: happy-dom's navigator
 * has none), the DPoP key the sign-in made, and, unless `signedIn` is false, the stored user.
 */
export async function openSignedInTab(keycloak: ReturnType<typeof fakeKeycloak>, { signedIn = true } = {}) {
  const dpopStore = new MemoryDPoPStore();
  const userManager = createUserManager(keycloak.config, { dpopStore, sharing: { locks } });
  const keyThumbprint = (await userManager.generateDPoPJkt({ store: dpopStore }))!;
  if (signedIn) await userManager.storeUser(keycloak.signedInUser());
  return { userManager, dpopStore, keyThumbprint };
}

/** Empties the test page's storage (IndexedDB and localStorage), as a new browser profile would have it. */
export function clearOriginStorage(): void {
  globalThis.indexedDB = new IDBFactory();
  window.localStorage.clear();
}
