// The shell's session in a real Chromium (Playwright), as code running in the page sees it: the tokens and the
// DPoP key in its IndexedDB, which any script of the origin can use.
import type { Page } from '@playwright/test';
import { API_URL, TOKEN_ENDPOINT } from './addresses.ts';
import type { TokenAnswer } from './keycloak.ts';

/** The session as the shell stores it (oidc-client-ts's user, shared by the tabs of the origin). */
export interface StoredSession {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly token_type: string;
  readonly expires_at: number;
}

/** Where the shell keeps the user: the IndexedDB database and object store of its `IndexedDbStateStore`. */
const SESSION_DATABASE = { name: 'atrium-session', store: 'state' };

/** Reads the session out of the page's storage, as code running in the page could (`{}` when there is none). */
export async function storedSession(page: Page): Promise<StoredSession> {
  return page.evaluate(async ({ name, store }) => {
    const users = await new Promise<unknown[]>((resolve, reject) => {
      const open = indexedDB.open(name);
      // Nobody has signed in on this origin yet: leave no empty database behind for the shell to find.
      open.onupgradeneeded = () => open.transaction?.abort();
      open.onerror = () =>
        open.error?.name === 'AbortError' ? resolve([]) : reject(open.error ?? new Error('indexedDB'));
      open.onsuccess = () => {
        const database = open.result;
        // oidc-client-ts keys the user `user:<authority>:<client id>`.
        const read = database
          .transaction(store)
          .objectStore(store)
          .getAll(IDBKeyRange.bound('user:', 'user:\uffff'));
        read.onerror = () => reject(read.error ?? new Error('read'));
        read.onsuccess = () => resolve(read.result);
        database.close();
      };
    });
    return JSON.parse((users[0] as string | undefined) ?? '{}') as StoredSession;
  }, SESSION_DATABASE);
}

/**
 * A DPoP proof (RFC 9449 §4.2) signed in the page with the page's own key (non-extractable, but usable by any
 * script of the origin), with `ath` when it accompanies `accessToken`: the strongest attacker short of owning the
 * browser.
 */
async function proofInPage(page: Page, htm: string, htu: string, accessToken?: string): Promise<string> {
  return page.evaluate(
    async ({ htm, htu, accessToken }) => {
      const keys = await new Promise<CryptoKeyPair>((resolve, reject) => {
        const open = indexedDB.open('oidc');
        open.onerror = () => reject(open.error ?? new Error('indexedDB'));
        open.onsuccess = () => {
          const read = open.result.transaction('dpop').objectStore('dpop').get('atrium-shell');
          read.onerror = () => reject(read.error ?? new Error('read'));
          read.onsuccess = () => resolve((read.result as { keys: CryptoKeyPair }).keys);
        };
      });
      const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', keys.publicKey);
      const encode = (bytes: Uint8Array) =>
        btoa(String.fromCharCode(...bytes))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
      const part = (value: object) => encode(new TextEncoder().encode(JSON.stringify(value)));
      const ath =
        accessToken === undefined
          ? undefined
          : encode(
              new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))),
            );
      const input = `${part({ alg: 'ES256', typ: 'dpop+jwt', jwk: { kty, crv, x, y } })}.${part({
        htm,
        htu,
        jti: crypto.randomUUID(),
        iat: Math.floor(Date.now() / 1000),
        ...(ath === undefined ? {} : { ath }),
      })}`;
      const signature = await crypto.subtle.sign(
        { name: 'ECDSA', hash: 'SHA-256' },
        keys.privateKey,
        new TextEncoder().encode(input),
      );
      return `${input}.${encode(new Uint8Array(signature))}`;
    },
    { htm, htu, accessToken },
  );
}

/**
 * Code running in the page redeems a refresh token itself, with a proof signed by the page's own DPoP key
 * (non-extractable, but usable by any script of the origin): the strongest attacker short of owning the
 * browser.
 */
export async function redeemInPage(page: Page, refreshToken: string): Promise<TokenAnswer> {
  const proof = await proofInPage(page, 'POST', TOKEN_ENDPOINT);
  return page.evaluate(
    async ({ refreshToken, tokenEndpoint, proof }) => {
      const response = await fetch(tokenEndpoint, {
        method: 'POST',
        headers: { DPoP: proof },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: 'atrium-shell',
          refresh_token: refreshToken,
        }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    { refreshToken, tokenEndpoint: TOKEN_ENDPOINT, proof },
  );
}

/** Waits until the page has renewed its tokens (the stored refresh token differs from `previous`). */
export async function nextRenewal(
  page: Page,
  previous: StoredSession,
  timeoutMs = 90_000,
): Promise<StoredSession> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let current: StoredSession;
    try {
      current = await storedSession(page);
    } catch (error) {
      // The shell may reload the page while we poll (a renewal that fell back to a sign-in round trip);
      // read again once the new page has loaded. Whether the person keeps working is asserted by the caller.
      if (!String(error).includes('Execution context was destroyed')) throw error;
      await page.waitForLoadState('load');
      continue;
    }
    if (current.refresh_token !== undefined && current.refresh_token !== previous.refresh_token)
      return current;
    if (Date.now() > deadline)
      throw new Error(`The page did not renew its tokens within ${timeoutMs / 1000} s.`);
    await page.waitForTimeout(1_000);
  }
}

/** What the API answered a request made by {@link callApiInPage}. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: Record<string, unknown> | null;
}

/**
 * Code running in the page calls the API itself, past the shell's own checks, with the page's access token and a
 * proof signed by the page's own DPoP key (as {@link redeemInPage} does at Keycloak): what the API alone decides.
 */
export async function callApiInPage(
  page: Page,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const url = `${API_URL}${path}`;
  const token = (await storedSession(page)).access_token;
  if (!token) throw new Error('the page holds no session');
  const proof = await proofInPage(page, method, url, token);
  return page.evaluate(
    async ({ method, url, body, token, proof }) => {
      const response = await fetch(url, {
        method,
        headers: {
          Authorization: `DPoP ${token}`,
          DPoP: proof,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return {
        status: response.status,
        body: text === '' ? null : (JSON.parse(text) as Record<string, unknown>),
      };
    },
    { method, url, body, token, proof },
  );
}
