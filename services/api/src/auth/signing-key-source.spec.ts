import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { parseJwks, SigningKeySource } from './signing-key-source.js';

describe('signing keys: rotation, unknown kids and issuer outages', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let keys: SigningKeySource;
  let offsetMs = 0;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer, OIDC_JWKS_REFETCH_INTERVAL_SECONDS: '30' });
    await api.waitForIssuer();
    keys = api.app.get(SigningKeySource);
    // The refetch limit is measured on this clock; moving it forward stands in for waiting 30 s.
    keys.now = () => Date.now() + offsetMs;
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const me = async (token: string) => api.request({ url: '/api/me', token });

  it('lets a flood of random key ids cause at most one JWKS fetch per interval, all refused 401', async () => {
    offsetMs += 31_000;
    const before = issuer.jwksRequests;
    const responses = await Promise.all(
      Array.from({ length: 40 }, async () =>
        me(await issuer.mint({ header: { kid: randomBytes(8).toString('hex') } })),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(40).fill(401));
    expect(responses[0]?.json()).toMatchObject({ code: 'invalid_token' });
    expect(issuer.jwksRequests - before).toBe(1);
  });

  it('accepts a rotated key at the latest one interval after it appears', async () => {
    const before = issuer.jwksRequests;
    const kid = await issuer.rotate();
    const token = await issuer.mint({ useKid: kid });
    // Right after the flood the limit holds: the new key is not fetched yet.
    expect((await me(token)).statusCode).toBe(401);
    expect(issuer.jwksRequests).toBe(before);
    offsetMs += 31_000;
    expect((await me(token)).statusCode).toBe(200);
    expect(issuer.jwksRequests).toBe(before + 1);
    // Known now: no further fetch.
    expect((await me(await issuer.mint({ useKid: kid }))).statusCode).toBe(200);
    expect(issuer.jwksRequests).toBe(before + 1);
  });

  it('keeps accepting tokens signed with cached keys while the issuer is down; unknown keys get 503 + Retry-After', async () => {
    issuer.setAvailable(false);
    try {
      offsetMs += 31_000;
      expect((await me(await issuer.mint())).statusCode).toBe(200);
      const unknown = await me(await issuer.mint({ header: { kid: 'not-yet-fetched' } }));
      expect(unknown.statusCode).toBe(503);
      expect(unknown.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(unknown.json()).toMatchObject({ code: 'issuer_unavailable' });
      // Within the interval after a failed fetch: still 503 (we cannot know), and no new fetch is tried.
      const requests = issuer.jwksRequests;
      expect((await me(await issuer.mint({ header: { kid: 'another' } }))).statusCode).toBe(503);
      expect(issuer.jwksRequests).toBe(requests);
      expect((await me(await issuer.mint())).statusCode).toBe(200);
    } finally {
      issuer.setAvailable(true);
    }
  });

  it('drops keys the issuer no longer publishes once it refetches', async () => {
    // A unique jti: an identical token checked earlier would be served from the verified-token cache.
    const oldToken = await issuer.mint({ claims: { jti: randomBytes(8).toString('hex') } });
    const newKid = await issuer.rotate({ retireOld: true });
    offsetMs += 31_000;
    expect((await me(await issuer.mint({ useKid: newKid }))).statusCode).toBe(200);
    expect((await me(oldToken)).statusCode).toBe(401);
  });
});

describe('parseJwks', () => {
  const rsa = { kty: 'RSA', n: 'x'.repeat(10), e: 'AQAB' };

  it('keeps only public signature keys with a kid and an allowed algorithm', async () => {
    const issuer = await startLocalIssuer();
    try {
      const response = await fetch(`${issuer.issuer}/protocol/openid-connect/certs`);
      const [good] = ((await response.json()) as { keys: Array<Record<string, unknown>> }).keys;
      const keys = parseJwks(
        {
          keys: [
            good,
            { ...good, kid: 'enc', use: 'enc' },
            { ...good, kid: 'hs', alg: 'HS256' },
            { ...good, kid: 'private', d: 'secret' },
            { ...good, kid: undefined },
            { ...rsa, kid: 'too-short' },
            { kty: 'oct', kid: 'oct', k: 'c2VjcmV0' },
          ],
        },
        ['RS256'],
      );
      expect([...keys.keys()]).toEqual([issuer.kid]);
    } finally {
      await issuer.close();
    }
  });

  it('refuses a document without keys', () => {
    expect(() => parseJwks({}, ['RS256'])).toThrow(/keys/);
  });
});
