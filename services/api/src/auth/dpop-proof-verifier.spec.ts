import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.js';
import { DpopProofVerifier } from './dpop-proof-verifier.js';

const API = 'http://127.0.0.1:3000';
const accessToken = 'header.payload.signature';

/** A proof signed by hand (jose refuses to sign some of what an attacker sends), ES256 as browsers sign. */
async function handMadeProof(header: Record<string, unknown> = {}) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' }) as JWK;
  const jwk = { kty, crv, x, y };
  const encode = (part: object) => Buffer.from(JSON.stringify(part)).toString('base64url');
  const input = `${encode({ typ: 'dpop+jwt', alg: 'ES256', jwk, ...header })}.${encode({
    htm: 'GET',
    htu: `${API}/api/me`,
    iat: Math.floor(Date.now() / 1000),
    jti: randomUUID(),
    ath: createHash('sha256').update(accessToken).digest('base64url'),
  })}`;
  const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return { proof: `${input}.${signature.toString('base64url')}`, jkt: await calculateJwkThumbprint(jwk) };
}

describe('DpopProofVerifier', () => {
  const verifier = new DpopProofVerifier(loadConfig({ NODE_ENV: 'development', API_PUBLIC_URL: API }));
  const expected = (jkt: string) => ({ method: 'GET', url: '/api/me', accessToken, jkt });

  it('accepts a proof made by hand as a browser makes it', async () => {
    const { proof, jkt } = await handMadeProof();
    await expect(verifier.verify(proof, expected(jkt))).resolves.toBeUndefined();
  });

  it('refuses a proof that names a critical header parameter, which it cannot honour', async () => {
    const { proof, jkt } = await handMadeProof({ crit: ['urn:example:bound'], 'urn:example:bound': true });
    await expect(verifier.verify(proof, expected(jkt))).rejects.toThrow(/critical header parameters/);
  });

  it('refuses a signature in DER rather than the raw r || s JWS asks for', async () => {
    const { proof, jkt } = await handMadeProof();
    const [header, payload, signature] = proof.split('.') as [string, string, string];
    const der = Buffer.concat([Buffer.from([0x30, 0x44, 0x02, 0x20]), Buffer.from(signature, 'base64url')]);
    await expect(
      verifier.verify(`${header}.${payload}.${der.toString('base64url')}`, expected(jkt)),
    ).rejects.toThrow(/signature does not verify/);
  });
});
