// DPoP proofs for the benchmark's authenticated target: what a browser sends, one fresh proof per request
// (RFC 9449 §4.2: typ dpop+jwt, ES256, the public key in the header, htm, htu, iat, a unique jti, ath).
// Signed with node:crypto synchronously (about 60 µs each on these machines, half of jose's WebCrypto path),
// because the load generator signs a whole pool of them before each measurement (docs/adr/0006).
import { createHash, createPrivateKey, type JsonWebKey, randomUUID, sign } from 'node:crypto';

/** What the load generator needs to make proofs: the private key as a JWK and the request they are for. */
export interface ProofRecipe {
  readonly privateJwk: JsonWebKey;
  readonly htm: string;
  readonly htu: string;
  readonly accessToken: string;
}

/** A signer for `recipe`: each call returns a new proof with a fresh jti and the current iat. */
export function proofSigner(recipe: ProofRecipe): () => string {
  const privateKey = createPrivateKey({ key: recipe.privateJwk, format: 'jwk' });
  const { kty, crv, x, y } = recipe.privateJwk;
  const header = Buffer.from(
    JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty, crv, x, y } }),
  ).toString('base64url');
  const ath = createHash('sha256').update(recipe.accessToken).digest('base64url');
  return () => {
    const claims = {
      htm: recipe.htm,
      htu: recipe.htu,
      iat: Math.floor(Date.now() / 1000),
      jti: randomUUID(),
      ath,
    };
    const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    const signature = sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' });
    return `${input}.${signature.toString('base64url')}`;
  };
}
