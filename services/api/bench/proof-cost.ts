// What checking one DPoP proof costs the API, against the physical limit: one signature verification.
// Started by bench.ts pinned to the servers' core before they start; prints, in CPU µs per proof:
//   raw_verify_us         one node:crypto verify of a P-256 signature over a proof's signing input (the limit)
//   proof_check_us        the built DpopProofVerifier's whole check of a pre-signed proof, proofs arriving 16 at
//                         a time as under the bench's 16 connections (their signatures are checked together)
//   proof_check_alone_us  the same, one proof at a time (a server with one request in flight)
//   proof_overhead_ratio  proof_check_us / raw_verify_us (1 would be the verification and nothing else)
//   node bench/proof-cost.ts
import { generateKeyPairSync, sign as signWith, verify } from 'node:crypto';
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
const moreProofs = Array.from({ length: WARM_UP + MEASURED }, sign);
const expected = { method: 'GET', url: '/api/me', accessToken, jkt };

/**
 * CPU µs per call of `run` over `inputs` (after a warm-up on the first {@link WARM_UP}), `together` calls at a
 * time.
 */
async function cpuMicroseconds<T>(
  inputs: readonly T[],
  run: (input: T) => unknown,
  together = 1,
): Promise<number> {
  const runAll = async (slice: readonly T[]) => {
    for (let first = 0; first < slice.length; first += together)
      await Promise.all(slice.slice(first, first + together).map(run));
  };
  await runAll(inputs.slice(0, WARM_UP));
  const before = process.cpuUsage();
  await runAll(inputs.slice(WARM_UP));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (inputs.length - WARM_UP);
}

// The limit: the same signatures, verified by node:crypto alone with the key already imported.
const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signed = proofs.map((proof) => {
  const input = Buffer.from(proof.slice(0, proof.lastIndexOf('.')));
  return { input, signature: signWith('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }) };
});
const rawVerify = await cpuMicroseconds(signed, ({ input, signature }) =>
  verify('sha256', input, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature),
);
const proofCheck = await cpuMicroseconds(proofs, (proof) => verifier.verify(proof, expected), 16);
const proofCheckAlone = await cpuMicroseconds(moreProofs, (proof) => verifier.verify(proof, expected));
console.log(`raw_verify_us=${rawVerify.toFixed(0)}`);
console.log(`proof_check_us=${proofCheck.toFixed(0)}`);
console.log(`proof_check_alone_us=${proofCheckAlone.toFixed(0)}`);
console.log(`proof_overhead_ratio=${(proofCheck / rawVerify).toFixed(2)} (target <= 1.15)`);
