import type { Page } from '@playwright/test';
import { createHash, randomUUID } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

export const ISSUER = 'http://localhost:8080/realms/atrium';
export const TOKEN_ENDPOINT = `${ISSUER}/protocol/openid-connect/token`;
export const API_URL = 'http://localhost:3000';

/** The session as the shell stores it (oidc-client-ts's user, shared by the tabs of the origin). */
export interface StoredSession {
  readonly access_token: string;
  readonly refresh_token: string;
  readonly token_type: string;
  readonly expires_at: number;
}

/** Reads the session out of the page's storage, as code running in the page could. */
export async function storedSession(page: Page): Promise<StoredSession> {
  return page.evaluate(() => {
    const key = Object.keys(localStorage).find((name) => name.startsWith('oidc.user:'));
    return JSON.parse(localStorage.getItem(key ?? '') ?? '{}') as StoredSession;
  });
}

/** The claims of a JWT, unverified (for looking at what Keycloak issued). */
export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

/** A key pair of the attacker's own: proofs signed with it are well formed but bound to the wrong key. */
export async function attackerKey() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return {
    /** A DPoP proof for one request (RFC 9449 §4.2), with `ath` when it accompanies an access token. */
    proof: (htm: string, htu: string, accessToken?: string) =>
      new SignJWT({
        htm,
        htu,
        jti: randomUUID(),
        ...(accessToken === undefined
          ? {}
          : { ath: createHash('sha256').update(accessToken).digest('base64url') }),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .setIssuedAt()
        .sign(privateKey),
  };
}

/** What Keycloak's token endpoint answered. */
export interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Redeems a refresh token at Keycloak as the shell's client, from this Node process (another machine). */
export async function redeemRefreshToken(refreshToken: string, dpopProof?: string): Promise<TokenAnswer> {
  const response = await fetch(TOKEN_ENDPOINT, {
    method: 'POST',
    headers: dpopProof === undefined ? {} : { DPoP: dpopProof },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: 'atrium-shell',
      refresh_token: refreshToken,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Code running in the page redeems a refresh token itself, with a proof signed by the page's own DPoP key
 * (non-extractable, but usable by any script of the origin): the strongest attacker short of owning the
 * browser.
 */
export async function redeemInPage(page: Page, refreshToken: string): Promise<TokenAnswer> {
  return page.evaluate(
    async ({ refreshToken, tokenEndpoint }) => {
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
      const input = `${part({ alg: 'ES256', typ: 'dpop+jwt', jwk: { kty, crv, x, y } })}.${part({
        htm: 'POST',
        htu: tokenEndpoint,
        jti: crypto.randomUUID(),
        iat: Math.floor(Date.now() / 1000),
      })}`;
      const signature = await crypto.subtle.sign(
        { name: 'ECDSA', hash: 'SHA-256' },
        keys.privateKey,
        new TextEncoder().encode(input),
      );
      const response = await fetch(tokenEndpoint, {
        method: 'POST',
        headers: { DPoP: `${input}.${encode(new Uint8Array(signature))}` },
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: 'atrium-shell',
          refresh_token: refreshToken,
        }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    { refreshToken, tokenEndpoint: TOKEN_ENDPOINT },
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
  return page.evaluate(
    async ({ method, url, body }) => {
      const key = Object.keys(localStorage).find((name) => name.startsWith('oidc.user:'));
      const token = (JSON.parse(localStorage.getItem(key ?? '') ?? '{}') as { access_token?: string })
        .access_token;
      if (!token) throw new Error('the page holds no session');
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
      const ath = encode(
        new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))),
      );
      const input = `${part({ alg: 'ES256', typ: 'dpop+jwt', jwk: { kty, crv, x, y } })}.${part({
        htm: method,
        htu: url,
        jti: crypto.randomUUID(),
        iat: Math.floor(Date.now() / 1000),
        ath,
      })}`;
      const signature = await crypto.subtle.sign(
        { name: 'ECDSA', hash: 'SHA-256' },
        keys.privateKey,
        new TextEncoder().encode(input),
      );
      const response = await fetch(url, {
        method,
        headers: {
          Authorization: `DPoP ${token}`,
          DPoP: `${input}.${encode(new Uint8Array(signature))}`,
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
    { method, url: `${API_URL}${path}`, body },
  );
}
