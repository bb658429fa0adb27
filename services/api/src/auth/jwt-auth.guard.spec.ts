import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { freePort } from '@atrium/infra-lib/ports';
import { generateRsaKey, type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';

function craftToken(header: object, payload: object, sign: (input: string) => string): string {
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const input = `${encode(header)}.${encode(payload)}`;
  return `${input}.${sign(input)}`;
}

describe('access-token checking (global guard)', () => {
  let issuer: LocalIssuer;
  let api: TestApp;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer, OIDC_AUDIENCE: issuer.audience });
    await api.waitForIssuer();
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const rawHeader = (extra: Record<string, unknown> = {}) => ({
    alg: 'RS256',
    typ: 'at+jwt',
    kid: issuer.kid,
    ...extra,
  });

  const standardClaims = () => ({
    sub: 'user-123',
    iss: issuer.issuer,
    aud: issuer.audience,
    azp: 'atrium-shell',
    iat: Math.floor(Date.now() / 1000),
    exp: Math.floor(Date.now() / 1000) + 300,
  });

  it('accepts a valid RS256 access token from the issuer', async () => {
    const response = await api.request({ url: '/api/me', token: await issuer.mint() });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ sub: 'user-123', roles: ['atrium-user'] });
  });

  it('answers 401 with bare Bearer and DPoP challenges and a problem document when no token is sent', async () => {
    const response = await api.request({ url: '/api/me' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="atrium", DPoP realm="atrium"');
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 401, code: 'unauthenticated' });
  });

  it('treats a non-Bearer Authorization header as no token', async () => {
    const response = await api.request({ url: '/api/me', headers: { authorization: 'Basic YWRhOnB3' } });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'unauthenticated' });
  });

  const expectInvalidRequest = (response: {
    statusCode: number;
    headers: Record<string, unknown>;
    json: <T>() => T;
  }) => {
    expect(response.statusCode).toBe(400);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="atrium", error="invalid_request"/);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 400, code: 'invalid_request' });
  };

  it('refuses a token in the query string with 400 invalid_request, even with a valid header', async () => {
    const token = await issuer.mint();
    expectInvalidRequest(await api.request({ url: `/api/me?access_token=${token}` }));
    expectInvalidRequest(await api.request({ url: `/api/me?access_token=${token}`, token }));
  });

  it('refuses a token in the body with 400 invalid_request', async () => {
    const token = await issuer.mint();
    expectInvalidRequest(
      await api.request({
        method: 'PUT',
        url: '/api/me/preferences',
        body: { theme: 'dark', access_token: token },
      }),
    );
  });

  it.each([
    ['Bearer with no token', 'Bearer'],
    ['Bearer with an empty token', 'Bearer '],
    ['two tokens', 'Bearer abc def'],
    ['characters outside b64token', 'Bearer abc$def'],
    ['two spaces', 'Bearer  abc'],
  ])('refuses a malformed Authorization header (%s) with 400 invalid_request', async (_name, header) => {
    expectInvalidRequest(await api.request({ url: '/api/me', headers: { authorization: header } }));
  });

  const refusals: Array<[string, () => Promise<string> | string]> = [
    ['a token from another issuer', () => issuer.mint({ issuer: 'http://127.0.0.1:1/realms/other' })],
    ['a token for another audience', () => issuer.mint({ audience: 'someone-else' })],
    ['an expired token', () => issuer.mint({ expiresIn: Math.floor(Date.now() / 1000) - 60 })],
    [
      'a token signed by an unknown key id',
      () => issuer.mint({ privateKey: generateRsaKey().privateKey, header: { kid: 'rogue' } }),
    ],
    [
      'a token signed by another key under the issuer key id',
      () => issuer.mint({ privateKey: generateRsaKey().privateKey }),
    ],
    [
      'an HS256 token keyed with the public key (algorithm confusion)',
      () =>
        craftToken({ alg: 'HS256', typ: 'at+jwt', kid: issuer.kid }, standardClaims(), (input) =>
          createHmac('sha256', issuer.publicKey.export({ type: 'spki', format: 'pem' }))
            .update(input)
            .digest('base64url'),
        ),
    ],
    [
      'an unsigned token (alg none)',
      () => craftToken({ alg: 'none', typ: 'at+jwt' }, standardClaims(), () => ''),
    ],
    ['an ID-token style JWT (typ JWT)', () => issuer.mint({ header: { typ: 'JWT' } })],
    ['a token without typ', () => issuer.mint({ header: { typ: '' } })],
    ['a token without sub', () => issuer.mint({ omitSub: true })],
    [
      'a sub longer than 255 characters (OpenID Connect Core §2)',
      () => issuer.mint({ claims: { sub: 's'.repeat(256) } }),
    ],
    ['a sub with a NUL character', () => issuer.mint({ claims: { sub: 'ada\u0000' } })],
    ['a string that is not a JWT', () => 'not-a-jwt'],
    ['a refresh-token style JWT (typ Refresh)', () => issuer.mint({ header: { typ: 'Refresh' } })],
    ['a logout token (typ logout+jwt)', () => issuer.mint({ header: { typ: 'logout+jwt' } })],
    ['a token without exp', () => issuer.signRaw(rawHeader(), { ...standardClaims(), exp: undefined })],
    [
      'a token not valid yet (nbf beyond the leeway)',
      () => issuer.mint({ claims: { nbf: Math.floor(Date.now() / 1000) + 120 } }),
    ],
    [
      'a token expired beyond the leeway',
      () => issuer.mint({ expiresIn: Math.floor(Date.now() / 1000) - 61 }),
    ],
    ['an issuer with a trailing slash', () => issuer.mint({ issuer: `${issuer.issuer}/` })],
    ['an audience list without ours', () => issuer.mint({ audience: ['account', 'other'] })],
    ['a validly signed RS384 token (not on OIDC_ALGORITHMS)', () => issuer.signRaw384()],
    [
      'a token with a crit header',
      () => issuer.signRaw(rawHeader({ crit: ['exp'], exp: 1 }), standardClaims()),
    ],
    [
      'a token naming its key by URL (jku)',
      () => issuer.signRaw(rawHeader({ jku: 'http://127.0.0.1:1/jwks' }), standardClaims()),
    ],
    [
      'a token naming its key by certificate URL (x5u)',
      () => issuer.signRaw(rawHeader({ x5u: 'http://127.0.0.1:1/cert' }), standardClaims()),
    ],
    [
      'a token embedding its key (jwk)',
      () => issuer.signRaw(rawHeader({ jwk: { kty: 'RSA' } }), standardClaims()),
    ],
    [
      'a token embedding a certificate chain (x5c)',
      () => issuer.signRaw(rawHeader({ x5c: ['MIIB'] }), standardClaims()),
    ],
    ['a token without kid', () => issuer.signRaw({ alg: 'RS256', typ: 'at+jwt' }, standardClaims())],
    ['a token with a huge kid', () => issuer.mint({ header: { kid: 'k'.repeat(10_000) } })],
    ['a token whose payload is not an object', () => issuer.signRawPayload(rawHeader(), '"just a string"')],
  ];

  it.each(refusals)('refuses %s with 401 invalid_token', async (_name, makeToken) => {
    const response = await api.request({ url: '/api/me', token: await makeToken() });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(
      /^Bearer realm="atrium", error="invalid_token", error_description="[^"]+"$/,
    );
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 401, code: 'invalid_token' });
  });

  it('accepts a token expired within the leeway, and an audience list that contains ours', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(
      (await api.request({ url: '/api/me', token: await issuer.mint({ expiresIn: now - 10 }) })).statusCode,
    ).toBe(200);
    const listed = await issuer.mint({ audience: ['account', issuer.audience] });
    expect((await api.request({ url: '/api/me', token: listed })).statusCode).toBe(200);
  });

  it('accepts a typ of application/at+jwt (RFC 9068 allows the full media type)', async () => {
    const token = await issuer.mint({ header: { typ: 'application/at+jwt' } });
    expect((await api.request({ url: '/api/me', token })).statusCode).toBe(200);
  });

  it('never echoes the token in the refusal', async () => {
    const token = await issuer.mint({ audience: 'someone-else' });
    const response = await api.request({ url: '/api/me', token });
    expect(response.body).not.toContain(token.split('.')[2]);
    expect(String(response.headers['www-authenticate'])).not.toContain(token.split('.')[2]);
  });

  it('lets public routes through without a token', async () => {
    expect((await api.request({ url: '/api/health/live' })).statusCode).toBe(200);
    expect((await api.request({ url: '/api/health/ready' })).statusCode).toBe(200);
  });
});

describe('when the issuer is unreachable', () => {
  it('stays up, reports not ready, answers tokens with 503 + Retry-After, and recovers once the issuer appears', async () => {
    const port = await freePort();
    const api = await createTestApp({ OIDC_ISSUER_URL: `http://127.0.0.1:${port}/realms/test` });
    let issuer: LocalIssuer | undefined;
    try {
      const ready = await api.request({ url: '/api/health/ready' });
      expect(ready.statusCode).toBe(503);
      expect(ready.json()).toEqual({ status: 'not_ready', checks: { database: 'up', issuer: 'down' } });

      const liveness = await api.request({ url: '/api/health/live' });
      expect(liveness.statusCode).toBe(200);

      // A token that would be valid once the keys are known: the API cannot tell yet, so 503, never 401 or 500.
      const early = await startLocalIssuer();
      const someToken = await early.mint();
      await early.close();
      const refused = await api.request({ url: '/api/me', token: someToken });
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.json()).toMatchObject({ code: 'issuer_unavailable', status: 503 });

      issuer = await startLocalIssuer({ port });
      await api.waitForIssuer(15_000);
      expect((await api.request({ url: '/api/health/ready' })).statusCode).toBe(200);
      expect((await api.request({ url: '/api/me', token: await issuer.mint() })).statusCode).toBe(200);
    } finally {
      await api.close();
      await issuer?.close();
    }
  });
});
