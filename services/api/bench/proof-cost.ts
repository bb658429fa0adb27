// What checking one DPoP proof costs the API: the built DpopProofVerifier, alone, on pre-signed proofs.
// Started by bench.ts pinned to the servers' core before they start; prints `proof_check_us=<CPU µs per proof>`.
//   node bench/proof-cost.ts
import { generateKeyPairSync } from 'node:crypto';
import { calculateJwkThumbprint } from 'jose';
import type * as Verifier from '../src/auth/dpop-proof-verifier.ts';
import type * as Env from '../src/config/env.schema.ts';
import { proofSigner } from './dpop-proofs.ts';

const { DpopProofVerifier } = (await import(
  new URL('../dist/auth/dpop-proof-verifier.js', import.meta.url).href
)) as typeof Verifier;
const { loadConfig } = (await import(
  new URL('../dist/config/env.schema.js', import.meta.url).href
)) as typeof Env;

const WARM_UP = 2_000;
const MEASURED = 10_000;
const publicUrl = 'http://127.0.0.1:39171';
const verifier = new DpopProofVerifier(loadConfig({ NODE_ENV: 'development', API_PUBLIC_URL: publicUrl }));
const privateJwk = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
const { kty, crv, x, y } = privateJwk;
const jkt = await calculateJwkThumbprint({ kty, crv, x, y });
// About the size of a Keycloak access token: `ath` hashes it on every request.
const accessToken = 'a'.repeat(1_200);
const sign = proofSigner({ privateJwk, htm: 'GET', htu: `${publicUrl}/api/me`, accessToken });
const proofs = Array.from({ length: WARM_UP + MEASURED }, sign);
const expected = { method: 'GET', url: '/api/me', accessToken, jkt };

for (const proof of proofs.slice(0, WARM_UP)) await verifier.verify(proof, expected);
const before = process.cpuUsage();
for (const proof of proofs.slice(WARM_UP)) await verifier.verify(proof, expected);
const used = process.cpuUsage(before);
console.log(`proof_check_us=${((used.user + used.system) / MEASURED).toFixed(0)}`);
