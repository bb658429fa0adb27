// DPoP (RFC 9449) as a client does it: a key pair, proofs for one request each, and the headers that present a
// token bound to it. Tests play the browser, an attacker with a key of their own, or a broken client with it.
import { createHash, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** What a test may change in one proof, to play an attacker or a broken client. */
export interface ProofOptions {
  /** Default the current time; seconds since the epoch. */
  iat?: number;
  /** Default a random UUID. */
  jti?: string;
  /** Default SHA-256 of the access token; `null` leaves `ath` out. */
  ath?: string | null;
  /** Extra or replaced header parameters. */
  header?: Record<string, unknown>;
  /** Extra or replaced claims. */
  claims?: Record<string, unknown>;
}

/** A client's DPoP key pair, as a browser keeps it, making proofs (RFC 9449 §4.2). */
export interface DpopKey {
  /** The RFC 7638 thumbprint of the public key: what a bound token carries in `cnf.jkt`. */
  readonly jkt: string;
  readonly publicJwk: JWK;
  /** A fresh proof for one request; `htu` is the URL without query and fragment. */
  proof(htm: string, htu: string, accessToken?: string, options?: ProofOptions): Promise<string>;
}

/** A fresh key pair (ES256 unless said otherwise), as a browser makes one and keeps it. */
export async function createDpopKey(alg: 'ES256' | 'ES384' | 'PS256' = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const jwk = Object.fromEntries(
    Object.entries(await exportJWK(publicKey)).filter(([member]) =>
      ['kty', 'crv', 'x', 'y', 'n', 'e'].includes(member),
    ),
  ) as JWK;
  return {
    jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    publicJwk: jwk,
    proof(htm, htu, accessToken, options = {}) {
      const ath =
        options.ath === undefined
          ? accessToken === undefined
            ? undefined
            : createHash('sha256').update(accessToken).digest('base64url')
          : options.ath;
      return new SignJWT({
        htm,
        htu,
        jti: options.jti ?? randomUUID(),
        iat: options.iat ?? Math.floor(Date.now() / 1000),
        ...(ath === undefined || ath === null ? {} : { ath }),
        ...options.claims,
      })
        .setProtectedHeader({ alg, typ: 'dpop+jwt', jwk, ...options.header })
        .sign(privateKey);
    },
  };
}

/** An access token and the key it is bound to: what a signed-in browser holds. */
export interface BoundToken {
  readonly accessToken: string;
  readonly dpop: DpopKey;
}

/**
 * The headers that present `credential` for one request: `Authorization: Bearer` for a plain token,
 * `Authorization: DPoP` and a fresh `DPoP` proof for a bound one. `url` is the full URL the request goes
 * to (its query is left out of the proof). The one way tests call the API as a user.
 */
export async function authorizationFor(
  credential: string | BoundToken,
  method: string,
  url: string,
): Promise<Record<string, string>> {
  if (typeof credential === 'string') return { authorization: `Bearer ${credential}` };
  const target = new URL(url);
  return {
    authorization: `DPoP ${credential.accessToken}`,
    dpop: await credential.dpop.proof(method, `${target.origin}${target.pathname}`, credential.accessToken),
  };
}
