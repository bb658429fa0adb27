import { createHash, createHmac, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type BoundToken, createDpopKey, type DpopKey } from '@atrium/test-support/dpop';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { SigningKeySource } from './signing-key-source.js';

const PUBLIC_URL = 'http://localhost:3000';
const ME = `${PUBLIC_URL}/api/me`;
const TOLERANCE = 10;
const MAX_AGE = 60;

type Response = Awaited<ReturnType<TestApp['request']>>;

const now = () => Math.floor(Date.now() / 1000);

function expectProofRefused(response: Response, description: RegExp): void {
  expect(response.statusCode).toBe(401);
  expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(response.json()).toMatchObject({ status: 401, code: 'invalid_dpop_proof' });
  const challenge = String(response.headers['www-authenticate']);
  expect(challenge).toMatch(/^DPoP realm="atrium", error="invalid_dpop_proof", error_description="[^"]+"$/);
  expect(challenge).toMatch(description);
}

describe('DPoP-bound access tokens (RFC 9449): a stolen token is worth little', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let holder: DpopKey;
  let attacker: DpopKey;
  let bound: BoundToken;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer.issuer,
      OIDC_AUDIENCE: issuer.audience,
      API_PUBLIC_URL: PUBLIC_URL,
      OIDC_CLOCK_TOLERANCE_SECONDS: String(TOLERANCE),
      DPOP_PROOF_MAX_AGE_SECONDS: String(MAX_AGE),
      OIDC_DPOP_REQUIRED_CLIENTS: 'atrium-shell',
    });
    await api.waitForIssuer();
    [holder, attacker] = await Promise.all([createDpopKey(), createDpopKey()]);
    bound = { accessToken: await mintBound(holder), dpop: holder };
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  /** A token bound to `key`, unique (its own jti), so no test shares a cache entry with another. */
  function mintBound(key: DpopKey, claims: Record<string, unknown> = {}): Promise<string> {
    return issuer.mint({ claims: { cnf: { jkt: key.jkt }, jti: randomBytes(8).toString('hex'), ...claims } });
  }

  /** GET /api/me presenting `token` with the DPoP scheme and exactly the proof given (or none). */
  const withProof = (
    token: string,
    proof: string | undefined,
    url = '/api/me',
    method: 'GET' | 'PUT' = 'GET',
  ) =>
    api.request({
      method,
      url,
      headers: { authorization: `DPoP ${token}`, ...(proof === undefined ? {} : { dpop: proof }) },
    });

  /** The legitimate holder, with a fresh proof: must keep working after every attack. */
  async function expectHolderWorks(token: BoundToken = bound): Promise<void> {
    const response = await api.request({ url: '/api/me', token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ sub: 'user-123' });
  }

  it('accepts a bound token with a fresh proof on every request, cached token or not', async () => {
    for (let request = 0; request < 3; request += 1) await expectHolderWorks();
  });

  it('refuses a stolen bound token replayed as Bearer (dpop_required) and keeps a DPoP challenge', async () => {
    const response = await api.request({ url: '/api/me', token: bound.accessToken });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'dpop_required' });
    expect(response.headers['www-authenticate']).toMatch(/^DPoP realm="atrium", error="invalid_token"/);
    await expectHolderWorks();
  });

  it('refuses a stolen bound token sent as DPoP without a proof, even while it sits in the verified-token cache', async () => {
    await expectHolderWorks(); // the token is now cached
    expectProofRefused(await withProof(bound.accessToken, undefined), /no DPoP proof/);
    await expectHolderWorks();
  });

  it("refuses a proof signed by the attacker's own key", async () => {
    const forged = await attacker.proof('GET', ME, bound.accessToken);
    expectProofRefused(
      await withProof(bound.accessToken, forged),
      /another key than the one the token is bound to/,
    );
    await expectHolderWorks();
  });

  it("refuses a proof that names the holder's public key but is signed by the attacker", async () => {
    const forged = await attacker.proof('GET', ME, bound.accessToken, { header: { jwk: holder.publicJwk } });
    expectProofRefused(await withProof(bound.accessToken, forged), /signature does not verify/);
    await expectHolderWorks();
  });

  it("refuses a proof with the holder's key dressed up (key_ops, use) and signed by the attacker, and the holder's first proof still works", async () => {
    // The attacker strikes before the API has seen the holder's key (a restart, another replica): the refused
    // proof must leave nothing behind that the holder's own proofs would then fail against.
    const fresh = await createDpopKey();
    const token: BoundToken = { accessToken: await mintBound(fresh), dpop: fresh };
    for (const dressing of [{ key_ops: [] }, { key_ops: ['sign'] }, { use: 'enc' }, { ext: false }]) {
      const forged = await attacker.proof('GET', ME, token.accessToken, {
        header: { jwk: { ...fresh.publicJwk, ...dressing } },
      });
      expectProofRefused(await withProof(token.accessToken, forged), /signature does not verify/);
    }
    await expectHolderWorks(token);
    await expectHolderWorks(token);
  });

  it('refuses a proof made for another method, another path or another host', async () => {
    const token = bound.accessToken;
    expectProofRefused(await withProof(token, await holder.proof('PUT', ME, token)), /another HTTP method/);
    const forRemotes = await holder.proof('GET', `${PUBLIC_URL}/api/remotes`, token);
    expectProofRefused(await withProof(token, forRemotes), /another URL/);
    const elsewhere = await holder.proof('GET', 'http://api.evil.test/api/me', token);
    expectProofRefused(await withProof(token, elsewhere), /another URL/);
    // The request's Host header does not choose the URL: API_PUBLIC_URL does (replicas behind a proxy).
    const forHost = await holder.proof('GET', 'http://127.0.0.1:3001/api/me', token);
    const viaHost = await api.request({
      url: '/api/me',
      headers: { host: '127.0.0.1:3001', authorization: `DPoP ${token}`, dpop: forHost },
    });
    expectProofRefused(viaHost, /another URL/);
    await expectHolderWorks();
  });

  it('compares htu without query and fragment, after normalizing scheme, host and default port', async () => {
    const token = bound.accessToken;
    const proof = await holder.proof('GET', 'HTTP://LOCALHOST:3000/api/me#ignored', token);
    expect((await withProof(token, proof, '/api/me?view=full')).statusCode).toBe(200);
  });

  it('refuses a replayed proof (same jti), while fresh proofs keep working', async () => {
    const proof = await holder.proof('GET', ME, bound.accessToken);
    expect((await withProof(bound.accessToken, proof)).statusCode).toBe(200);
    expectProofRefused(await withProof(bound.accessToken, proof), /already used/);
    const sameJti = await holder.proof('GET', ME, bound.accessToken, { jti: 'fixed-jti' });
    expect((await withProof(bound.accessToken, sameJti)).statusCode).toBe(200);
    const again = await holder.proof('GET', ME, bound.accessToken, { jti: 'fixed-jti' });
    expectProofRefused(await withProof(bound.accessToken, again), /already used/);
    await expectHolderWorks();
  });

  it('refuses a proof without ath, or with the hash of another token', async () => {
    const token = bound.accessToken;
    expectProofRefused(await withProof(token, await holder.proof('GET', ME, token, { ath: null })), /no ath/);
    const other = createHash('sha256').update('another-token').digest('base64url');
    expectProofRefused(
      await withProof(token, await holder.proof('GET', ME, token, { ath: other })),
      /another access token/,
    );
    await expectHolderWorks();
  });

  it('refuses a proof older than the window or from the future, and accepts one within the tolerance', async () => {
    const token = bound.accessToken;
    const old = await holder.proof('GET', ME, token, { iat: now() - MAX_AGE - TOLERANCE - 5 });
    expectProofRefused(await withProof(token, old), /too old/);
    const future = await holder.proof('GET', ME, token, { iat: now() + TOLERANCE + 5 });
    expectProofRefused(await withProof(token, future), /in the future/);
    const skewed = await holder.proof('GET', ME, token, { iat: now() + TOLERANCE - 3 });
    expect((await withProof(token, skewed)).statusCode).toBe(200);
    const aging = await holder.proof('GET', ME, token, { iat: now() - MAX_AGE + 5 });
    expect((await withProof(token, aging)).statusCode).toBe(200);
    await expectHolderWorks();
  });

  it.each([
    ['typ JWT', { header: { typ: 'JWT' } }, /typ dpop\+jwt/],
    ['no jti', { claims: { jti: undefined } }, /no jti/],
    ['no htm', { claims: { htm: undefined } }, /no htm/],
    ['an iat that is not a number', { claims: { iat: 'now' } }, /iat claim is invalid/],
    ['an exp in the past', { claims: { exp: 1 } }, /exp claim/],
    ['a private key in the header', { header: { jwk: { d: 'c2VjcmV0' } } }, /public key/],
    ['no key in the header', { header: { jwk: undefined } }, /no public key/],
  ] as const)('refuses a proof with %s', async (_name, options, description) => {
    const extraHeader: Record<string, unknown> | undefined = 'header' in options ? options.header : undefined;
    const header =
      extraHeader && 'jwk' in extraHeader
        ? { jwk: mergeJwk(holder, extraHeader['jwk'] as Record<string, unknown> | undefined) }
        : extraHeader;
    const proof = await holder.proof('GET', ME, bound.accessToken, { ...options, header });
    expectProofRefused(await withProof(bound.accessToken, proof), description);
  });

  it('refuses unsigned (alg none) and HMAC proofs', async () => {
    const token = bound.accessToken;
    const payload = {
      htm: 'GET',
      htu: ME,
      iat: now(),
      jti: randomBytes(8).toString('hex'),
      ath: createHash('sha256').update(token).digest('base64url'),
    };
    const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
    const none = `${encode({ typ: 'dpop+jwt', alg: 'none', jwk: holder.publicJwk })}.${encode(payload)}.`;
    expectProofRefused(await withProof(token, none), /signed with one of ES256/);
    const hsInput = `${encode({ typ: 'dpop+jwt', alg: 'HS256', jwk: holder.publicJwk })}.${encode(payload)}`;
    const hs = `${hsInput}.${createHmac('sha256', JSON.stringify(holder.publicJwk)).update(hsInput).digest('base64url')}`;
    expectProofRefused(await withProof(token, hs), /signed with one of ES256/);
  });

  it('refuses two DPoP headers and a proof that is not a JWT', async () => {
    const token = bound.accessToken;
    const [first, second] = await Promise.all([
      holder.proof('GET', ME, token),
      holder.proof('GET', ME, token),
    ]);
    expectProofRefused(await withProof(token, `${first}, ${second}`), /more than one/);
    expectProofRefused(await withProof(token, 'not-a-jwt'), /not a JWT/);
  });

  it('accepts proofs signed with ES384 and PS256 keys too', async () => {
    for (const alg of ['ES384', 'PS256'] as const) {
      const key = await createDpopKey(alg);
      await expectHolderWorks({ accessToken: await mintBound(key), dpop: key });
    }
  });

  it("refuses an unbound token sent with the DPoP scheme, with a DPoP challenge; a deployer's works as Bearer", async () => {
    const unbound = await issuer.mint({ claims: { azp: 'atrium-deployer' } });
    const proof = await holder.proof('GET', ME, unbound);
    const response = await withProof(unbound, proof);
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'invalid_token' });
    expect(response.headers['www-authenticate']).toMatch(/^DPoP realm="atrium", error="invalid_token"/);
    expect((await api.request({ url: '/api/me', token: unbound })).statusCode).toBe(200);
  });

  it('challenges with DPoP when a DPoP-scheme token is itself invalid or the header is malformed', async () => {
    const expired = await issuer.mint({ claims: { cnf: { jkt: holder.jkt } }, expiresIn: now() - 3600 });
    const response = await withProof(expired, await holder.proof('GET', ME, expired));
    expect(response.json()).toMatchObject({ code: 'invalid_token' });
    expect(response.headers['www-authenticate']).toMatch(/^DPoP realm="atrium", error="invalid_token"/);
    const malformed = await api.request({ url: '/api/me', headers: { authorization: 'DPoP a b' } });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.headers['www-authenticate']).toMatch(/^DPoP realm="atrium", error="invalid_request"/);
  });

  it("refuses an unbound token of the shell's client, which must be DPoP-bound, while deployers stay Bearer", async () => {
    // A realm imported before atrium-shell required DPoP would still issue such tokens: the API refuses them.
    const unbound = await issuer.mint({ claims: { azp: 'atrium-shell' } });
    const response = await api.request({ url: '/api/me', token: unbound });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({
      code: 'invalid_token',
      detail: expect.stringMatching(/atrium-shell must be DPoP-bound/) as unknown,
    });
    const deployer = await issuer.mint({ claims: { azp: 'atrium-deployer' } });
    expect((await api.request({ url: '/api/me', token: deployer })).statusCode).toBe(200);
    await expectHolderWorks();
  });

  it('refuses a token bound by another confirmation method (cnf without jkt)', async () => {
    const token = await issuer.mint({ claims: { cnf: { 'x5t#S256': 'abc' } } });
    const response = await api.request({ url: '/api/me', token });
    expect(response.json()).toMatchObject({ code: 'invalid_token' });
  });

  it('answers a DPoP user missing a role with insufficient_scope under the DPoP scheme', async () => {
    const response = await api.request({ url: '/api/audit', token: bound });
    expect(response.statusCode).toBe(403);
    expect(response.headers['www-authenticate']).toMatch(/^DPoP realm="atrium", error="insufficient_scope"/);
  });
});

describe('access-token claims beyond the signature', () => {
  let issuer: LocalIssuer;
  let api: TestApp;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer.issuer,
      OIDC_AUDIENCE: issuer.audience,
      OIDC_CLOCK_TOLERANCE_SECONDS: String(TOLERANCE),
      OIDC_ALLOWED_CLIENTS: 'atrium-shell,atrium-deployer',
    });
    await api.waitForIssuer();
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const expectInvalidToken = async (token: string, description: RegExp) => {
    const response = await api.request({ url: '/api/me', token });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'invalid_token' });
    expect(String(response.headers['www-authenticate'])).toMatch(description);
  };

  it('refuses a token issued in the future beyond the clock tolerance; within it, accepts', async () => {
    await expectInvalidToken(await issuer.mint({ claims: { iat: now() + TOLERANCE + 30 } }), /in the future/);
    const skewed = await issuer.mint({ claims: { iat: now() + TOLERANCE - 3 } });
    expect((await api.request({ url: '/api/me', token: skewed })).statusCode).toBe(200);
  });

  it('refuses a token of a client the API does not serve, or naming none; allowed clients keep working', async () => {
    await expectInvalidToken(await issuer.mint({ claims: { azp: 'some-other-app' } }), /azp/);
    await expectInvalidToken(await issuer.mint({ claims: { azp: 'atrium-platform' } }), /azp/);
    await expectInvalidToken(await issuer.mint({ claims: { azp: undefined } }), /azp/);
    const deployer = await issuer.mint({ claims: { azp: 'atrium-deployer' } });
    expect((await api.request({ url: '/api/me', token: deployer })).statusCode).toBe(200);
    expect((await api.request({ url: '/api/me', token: await issuer.mint() })).statusCode).toBe(200);
  });
});

describe('verified tokens end with the key that verified them', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let offsetMs = 0;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer.issuer,
      OIDC_AUDIENCE: issuer.audience,
      OIDC_JWKS_REFETCH_INTERVAL_SECONDS: '30',
      API_PUBLIC_URL: PUBLIC_URL,
    });
    await api.waitForIssuer();
    api.app.get(SigningKeySource).now = () => Date.now() + offsetMs;
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  it('refuses a cached token at once when its signing key leaves the JWKS; tokens of the new key work', async () => {
    const key = await createDpopKey();
    const old: BoundToken = {
      accessToken: await issuer.mint({ claims: { cnf: { jkt: key.jkt } } }),
      dpop: key,
    };
    expect((await api.request({ url: '/api/me', token: old })).statusCode).toBe(200);
    expect((await api.request({ url: '/api/me', token: old })).statusCode).toBe(200); // served from the cache

    // The issuer rotates and retires the old key; the first token of the new key makes the API refetch.
    const newKid = await issuer.rotate({ retireOld: true });
    offsetMs += 31_000;
    const fresh: BoundToken = {
      accessToken: await issuer.mint({ useKid: newKid, claims: { cnf: { jkt: key.jkt } } }),
      dpop: key,
    };
    expect((await api.request({ url: '/api/me', token: fresh })).statusCode).toBe(200);

    const refused = await api.request({ url: '/api/me', token: old });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ code: 'invalid_token' });
    expect(refused.headers['www-authenticate']).toMatch(/^DPoP realm="atrium", error="invalid_token"/);
  });

  it('refuses a cached token once other key material is published under its kid', async () => {
    const token = await issuer.mint({ claims: { jti: randomBytes(8).toString('hex') } });
    expect((await api.request({ url: '/api/me', token })).statusCode).toBe(200);
    const kid = await issuer.rotate({ kid: issuer.kid });
    offsetMs += 31_000;
    expect(
      (await api.request({ url: '/api/me', token: await issuer.mint({ header: { kid: 'unknown' } }) }))
        .statusCode,
    ).toBe(401);
    expect((await api.request({ url: '/api/me', token })).statusCode).toBe(401);
    expect(
      (await api.request({ url: '/api/me', token: await issuer.mint({ useKid: kid }) })).statusCode,
    ).toBe(200);
  });

  it('keeps accepting tokens whose key is still published after a refresh', async () => {
    const token = await issuer.mint({ claims: { jti: randomBytes(8).toString('hex') } });
    expect((await api.request({ url: '/api/me', token })).statusCode).toBe(200);
    const before = issuer.jwksRequests;
    await issuer.rotate(); // keeps the current key
    offsetMs += 31_000;
    expect(
      (await api.request({ url: '/api/me', token: await issuer.mint({ header: { kid: 'unknown' } }) }))
        .statusCode,
    ).toBe(401);
    expect(issuer.jwksRequests).toBe(before + 1);
    expect((await api.request({ url: '/api/me', token })).statusCode).toBe(200);
  });
});

/** The holder's public JWK with `extra` members merged in (undefined removes the header's jwk). */
function mergeJwk(
  key: DpopKey,
  extra: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  return extra === undefined ? undefined : { ...key.publicJwk, ...extra };
}
