import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type BoundToken, createDpopKey, type DpopKey } from '@atrium/test-support/dpop';
import { fetchDeployerToken } from '@atrium/test-support/keycloak';
import { signIn } from '@atrium/test-support/browser';

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');
const PUBLIC_URL = 'http://localhost:3000';
const ME = `${PUBLIC_URL}/api/me`;

type Response = Awaited<ReturnType<TestApp['request']>>;

const expectProofRefused = (response: Response, description: RegExp) => {
  expect(response.statusCode).toBe(401);
  expect(response.json()).toMatchObject({ code: 'invalid_dpop_proof' });
  expect(String(response.headers['www-authenticate'])).toMatch(
    /^DPoP realm="atrium", error="invalid_dpop_proof"/,
  );
  expect(String(response.headers['www-authenticate'])).toMatch(description);
};

describe("a real user's DPoP-bound Keycloak token, stolen", () => {
  let api: TestApp;
  let alice: BoundToken;
  let attacker: DpopKey;

  beforeAll(async () => {
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      API_PUBLIC_URL: PUBLIC_URL,
    });
    await api.waitForIssuer();
    [alice, attacker] = await Promise.all([signIn(issuer, 'alice', 'alice'), createDpopKey()]);
  });

  afterAll(async () => {
    await api?.close();
  });

  /** What the thief sends: alice's token, with the DPoP scheme and whatever proof it could make. */
  const stolen = (proof: string | undefined) =>
    api.request({
      url: '/api/me',
      headers: { authorization: `DPoP ${alice.accessToken}`, ...(proof ? { dpop: proof } : {}) },
    });

  async function expectAliceWorks(): Promise<void> {
    const response = await api.request({ url: '/api/me', token: alice });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ username: 'alice' });
  }

  it('serves alice with a fresh proof on each request', async () => {
    await expectAliceWorks();
    await expectAliceWorks();
  });

  it('refuses the token replayed as Bearer', async () => {
    const response = await api.request({ url: '/api/me', token: alice.accessToken });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'dpop_required' });
    await expectAliceWorks();
  });

  it('refuses it without a proof, and with a proof of the attacker’s own key', async () => {
    expectProofRefused(await stolen(undefined), /no DPoP proof/);
    expectProofRefused(await stolen(await attacker.proof('GET', ME, alice.accessToken)), /another key/);
    await expectAliceWorks();
  });

  it("refuses alice's proof replayed, or reused for another method or URL", async () => {
    const proof = await alice.dpop.proof('GET', ME, alice.accessToken);
    expect((await stolen(proof)).statusCode).toBe(200); // alice's own request
    expectProofRefused(await stolen(proof), /already used/);
    expectProofRefused(await stolen(await alice.dpop.proof('POST', ME, alice.accessToken)), /method/);
    const forRemotes = await alice.dpop.proof('GET', `${PUBLIC_URL}/api/remotes`, alice.accessToken);
    expectProofRefused(await stolen(forRemotes), /URL/);
    await expectAliceWorks();
  });

  it('refuses proofs without ath, with the ath of another token, too old or from the future', async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = alice.accessToken;
    expectProofRefused(await stolen(await alice.dpop.proof('GET', ME, token, { ath: null })), /no ath/);
    const otherAth = createHash('sha256').update(`${token}x`).digest('base64url');
    expectProofRefused(
      await stolen(await alice.dpop.proof('GET', ME, token, { ath: otherAth })),
      /another access token/,
    );
    expectProofRefused(await stolen(await alice.dpop.proof('GET', ME, token, { iat: now - 600 })), /too old/);
    expectProofRefused(await stolen(await alice.dpop.proof('GET', ME, token, { iat: now + 600 })), /future/);
    await expectAliceWorks();
  });

  it("keeps the deployer's unbound client-credentials token a Bearer token", async () => {
    const deployer = await fetchDeployerToken(issuer);
    expect((await api.request({ url: '/api/me', token: deployer })).statusCode).toBe(200);
    const asDpop = await api.request({
      url: '/api/me',
      headers: { authorization: `DPoP ${deployer}`, dpop: await attacker.proof('GET', ME, deployer) },
    });
    expect(asDpop.statusCode).toBe(401);
    expect(asDpop.json()).toMatchObject({ code: 'invalid_token' });
  });
});

describe('a real token of a client the API does not serve', () => {
  let api: TestApp;

  beforeAll(async () => {
    // As if atrium-shell were some other application of the realm with the API's audience.
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      OIDC_ALLOWED_CLIENTS: 'atrium-deployer',
    });
    await api.waitForIssuer();
  });

  afterAll(async () => {
    await api?.close();
  });

  it('is refused (azp), with a valid proof, while the allowed client keeps working', async () => {
    const alice = await signIn(issuer, 'alice', 'alice');
    const response = await api.request({ url: '/api/me', token: alice });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'invalid_token' });
    expect(String(response.headers['www-authenticate'])).toMatch(/azp/);
    expect((await api.request({ url: '/api/me', token: await fetchDeployerToken(issuer) })).statusCode).toBe(
      200,
    );
  });
});
