import { createHash, type webcrypto } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  errors as joseErrors,
  importJWK,
  type JWK,
  jwtVerify,
} from 'jose';
import { InvalidDpopProofError } from './auth.errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { ProofReplayCache } from './proof-replay-cache.js';

/**
 * Algorithms a DPoP proof may be signed with: asymmetric only (never `none` or HMAC, RFC 9449 §4.3). ES256
 * is what browsers use (WebCrypto, oidc-client-ts); the others cover other clients at the same strength.
 */
export const DPOP_ALGORITHMS = ['ES256', 'ES384', 'PS256'] as const;

const KEY_TYPES: Record<(typeof DPOP_ALGORITHMS)[number], { kty: string; crv?: string }> = {
  ES256: { kty: 'EC', crv: 'P-256' },
  ES384: { kty: 'EC', crv: 'P-384' },
  PS256: { kty: 'RSA' },
};
// Members only a private or symmetric JWK has (RFC 7518 §6); a proof's header must carry a public key.
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
// A proof is a few hundred bytes (an RSA key makes it ~1 KB); anything far larger only costs parsing.
const MAX_PROOF_LENGTH = 8 * 1024;
const MAX_JTI_LENGTH = 128;
const MIN_RSA_MODULUS_CHARACTERS = Math.ceil((2048 / 8) * (4 / 3)); // 2048 bits in base64url
// Distinct client keys whose import and thumbprint are kept; a browser keeps its key for a session.
const MAX_KEYS = 10_000;
const ANOTHER_KEY = 'the proof is signed with another key than the one the token is bound to';

/** What a proof must match: the request it came with and the token it accompanies. */
export interface ProofExpectations {
  /** The request method. */
  readonly method: string;
  /** The request target as received (path and query; the query is ignored). */
  readonly url: string;
  /** The access token of the same request. */
  readonly accessToken: string;
  /** The token's `cnf.jkt`: the thumbprint of the key that must have signed the proof. */
  readonly jkt: string;
}

interface ClientKey {
  readonly key: webcrypto.CryptoKey;
  readonly thumbprint: string;
}

/**
 * Checks DPoP proofs (RFC 9449 §4.3) for DPoP-bound access tokens, on every request:
 * one `DPoP` header holding a JWT with `typ` `dpop+jwt`, an algorithm from {@link DPOP_ALGORITHMS}, a
 * public `jwk` in its header whose thumbprint is the token's `cnf.jkt` and which verifies the signature;
 * `htm` the request method, `htu` `API_PUBLIC_URL` + the request path (query and fragment ignored on both
 * sides), `iat` at most `DPOP_PROOF_MAX_AGE_SECONDS` old and not in the future (both with
 * `OIDC_CLOCK_TOLERANCE_SECONDS`), `ath` the SHA-256 of the access token, and a `jti` not seen before by
 * this process within that window.
 *
 * Each distinct client key is imported and thumbprinted once (bounded cache), so a request costs one
 * signature verification and a hash.
 */
@Injectable()
export class DpopProofVerifier {
  private readonly keys = new Map<string, ClientKey>();
  private readonly replays: ProofReplayCache;
  private readonly publicOrigin: string;
  private readonly maxAgeSeconds: number;
  private readonly toleranceSeconds: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.publicOrigin = config.apiPublicUrl;
    this.maxAgeSeconds = config.dpopProofMaxAgeSeconds;
    this.toleranceSeconds = config.clockToleranceSeconds;
    this.replays = new ProofReplayCache((this.maxAgeSeconds + 2 * this.toleranceSeconds) * 1000);
  }

  /**
   * Resolves when `proofHeader` (the request's `DPoP` header value) is a valid, fresh proof for this
   * request and token; records its jti.
   *
   * @throws InvalidDpopProofError naming the first rule the proof breaks.
   */
  async verify(proofHeader: string | string[] | undefined, expected: ProofExpectations): Promise<void> {
    const proof = singleProof(proofHeader);
    const header = readProofHeader(proof);
    const clientKey = await this.boundKey(header.jwk, header.alg, expected.jkt);
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(proof, clientKey.entry.key, {
        typ: 'dpop+jwt',
        algorithms: [header.alg],
        maxTokenAge: this.maxAgeSeconds,
        clockTolerance: this.toleranceSeconds,
        requiredClaims: ['jti', 'htm', 'htu', 'iat', 'ath'],
      }));
    } catch (error) {
      throw new InvalidDpopProofError(describeJoseRefusal(error));
    }
    if (claims['htm'] !== expected.method) {
      throw new InvalidDpopProofError('the proof was made for another HTTP method (htm)');
    }
    // The request target is concatenated, never resolved against the origin: `//host/path` must not move it.
    const requestUrl = withoutQuery(`${this.publicOrigin}${expected.url}`);
    if (requestUrl === undefined || withoutQuery(claims['htu']) !== requestUrl) {
      throw new InvalidDpopProofError('the proof was made for another URL (htu)');
    }
    if (claims['ath'] !== createHash('sha256').update(expected.accessToken).digest('base64url')) {
      throw new InvalidDpopProofError('the proof was made for another access token (ath)');
    }
    const jti = claims['jti'];
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) {
      throw new InvalidDpopProofError(`the proof needs a jti of 1 to ${MAX_JTI_LENGTH} characters`);
    }
    // Last, so that only a proof that passed everything else takes a place in the cache.
    if (!this.replays.use(`${clientKey.entry.thumbprint}.${jti}`)) {
      throw new InvalidDpopProofError('the proof was already used (jti)');
    }
    // Kept only once a proof signed by the key has verified: a request can never make the cache hold a key
    // that the holder's own proofs would then fail against.
    if (!clientKey.cached) this.remember(clientKey.id, clientKey.entry);
  }

  /**
   * The proof's key, imported, when its thumbprint is the token's `jkt`. Only such keys are imported (once
   * per distinct key, see {@link remember}): a proof with any other key is refused after one hash. The key is
   * built from the RFC 7638 members alone, so nothing else the header says (`key_ops`, `use`, `ext`, `alg`)
   * can change how it is imported.
   */
  private async boundKey(
    jwk: JWK,
    alg: (typeof DPOP_ALGORITHMS)[number],
    jkt: string,
  ): Promise<{ id: string; entry: ClientKey; cached: boolean }> {
    const publicKey = requiredMembers(jwk);
    const id = `${alg}:${JSON.stringify(publicKey)}`;
    const known = this.keys.get(id);
    if (known) {
      if (known.thumbprint !== jkt) throw new InvalidDpopProofError(ANOTHER_KEY);
      return { id, entry: known, cached: true };
    }
    let thumbprint: string;
    try {
      thumbprint = await calculateJwkThumbprint(publicKey, 'sha256');
    } catch {
      throw new InvalidDpopProofError(`the jwk in the proof's header is not a usable ${alg} public key`);
    }
    if (thumbprint !== jkt) throw new InvalidDpopProofError(ANOTHER_KEY);
    try {
      const key = await importJWK(publicKey, alg);
      if (key instanceof Uint8Array) throw new Error('not an asymmetric key');
      return { id, entry: { key, thumbprint }, cached: false };
    } catch {
      throw new InvalidDpopProofError(`the jwk in the proof's header is not a usable ${alg} public key`);
    }
  }

  /** Keeps an imported key whose proof verified, evicting the oldest beyond {@link MAX_KEYS}. */
  private remember(id: string, entry: ClientKey): void {
    if (this.keys.size >= MAX_KEYS) {
      const oldest = this.keys.keys().next();
      if (!oldest.done) this.keys.delete(oldest.value);
    }
    this.keys.set(id, entry);
  }
}

function singleProof(value: string | string[] | undefined): string {
  if (value === undefined || value === '') {
    throw new InvalidDpopProofError('the request has no DPoP proof header');
  }
  // Node joins repeated headers with ", "; a proof JWT holds neither commas nor spaces.
  if (Array.isArray(value) || value.includes(',')) {
    throw new InvalidDpopProofError('the request has more than one DPoP proof');
  }
  if (value.length > MAX_PROOF_LENGTH) throw new InvalidDpopProofError('the DPoP proof is too long');
  return value;
}

function readProofHeader(proof: string): { alg: (typeof DPOP_ALGORITHMS)[number]; jwk: JWK } {
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw new InvalidDpopProofError('the DPoP proof is not a JWT');
  }
  if (header['typ'] !== 'dpop+jwt') throw new InvalidDpopProofError('the proof must have typ dpop+jwt');
  const alg = header['alg'];
  if (typeof alg !== 'string' || !(DPOP_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new InvalidDpopProofError(`the proof must be signed with one of ${DPOP_ALGORITHMS.join(', ')}`);
  }
  const jwk = header['jwk'];
  if (jwk === null || typeof jwk !== 'object' || Array.isArray(jwk)) {
    throw new InvalidDpopProofError('the proof has no public key (jwk) in its header');
  }
  if (PRIVATE_MEMBERS.some((member) => member in jwk)) {
    throw new InvalidDpopProofError('the jwk in the proof must be a public key (it has private members)');
  }
  const expected = KEY_TYPES[alg as (typeof DPOP_ALGORITHMS)[number]];
  const { kty, crv, n } = jwk as Record<string, unknown>;
  if (kty !== expected.kty || (expected.crv !== undefined && crv !== expected.crv)) {
    throw new InvalidDpopProofError(`the jwk in the proof is not a key for ${alg}`);
  }
  if (kty === 'RSA' && (typeof n !== 'string' || n.length < MIN_RSA_MODULUS_CHARACTERS)) {
    throw new InvalidDpopProofError('the RSA key in the proof is shorter than 2048 bits');
  }
  return { alg: alg as (typeof DPOP_ALGORITHMS)[number], jwk: jwk };
}

/** The members RFC 7638 defines a public key by, in its order; everything else a header's jwk holds is dropped. */
function requiredMembers(jwk: JWK): JWK {
  return jwk.kty === 'RSA'
    ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
    : { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y };
}

/**
 * A URL without query and fragment, normalized (scheme and host lower case, default port dropped, dot
 * segments resolved) as RFC 9449 §4.3 asks; undefined for anything that is not an absolute http(s) URL.
 */
function withoutQuery(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return `${url.origin}${url.pathname}`;
  } catch {
    return undefined;
  }
}

function describeJoseRefusal(error: unknown): string {
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) {
    return 'the signature does not verify with the key in its header';
  }
  if (error instanceof joseErrors.JWTExpired) return 'the proof is too old (iat)';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    if (error.claim === 'iat' && error.reason === 'check_failed')
      return 'the proof is issued in the future (iat)';
    if (error.reason === 'missing') return `the proof has no ${error.claim} claim`;
    return `the proof's ${error.claim} claim is invalid`;
  }
  if (error instanceof joseErrors.JWTInvalid) return 'the proof is not a valid JWT';
  return 'the proof could not be verified';
}
