import {
  constants,
  createPublicKey,
  hash,
  type SigningOptions,
  verify as verifySignature,
  type VerifyKeyObjectInput,
} from 'node:crypto';
import { Inject, Injectable, Optional } from '@nestjs/common';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { InvalidDpopProofError } from './auth.errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { ProofReplayCache, proofWindowMs } from './proof-replay-cache.js';
import { SignatureBatch } from './signature-batch.js';
import { SHARED_PROOF_REPLAYS, type SharedProofReplays } from './shared-proof-replays.js';

/**
 * Algorithms a DPoP proof may be signed with: asymmetric only (never `none` or HMAC, RFC 9449 §4.3). ES256
 * is what browsers use (WebCrypto, oidc-client-ts); the others cover other clients at the same strength.
 */
export const DPOP_ALGORITHMS = ['ES256', 'ES384', 'PS256'] as const;

type DpopAlgorithm = (typeof DPOP_ALGORITHMS)[number];

const KEY_TYPES: Record<DpopAlgorithm, { kty: string; crv?: string }> = {
  ES256: { kty: 'EC', crv: 'P-256' },
  ES384: { kty: 'EC', crv: 'P-384' },
  PS256: { kty: 'RSA' },
};

/**
 * How each algorithm's signature is checked with node:crypto (RFC 7518 §3.4: an ECDSA signature is the raw
 * r || s; §3.5: RSASSA-PSS with SHA-256, MGF1 with SHA-256, a salt as long as the hash).
 */
const SIGNATURES: Record<DpopAlgorithm, { hash: string; options: SigningOptions }> = {
  ES256: { hash: 'sha256', options: { dsaEncoding: 'ieee-p1363' } },
  ES384: { hash: 'sha384', options: { dsaEncoding: 'ieee-p1363' } },
  PS256: {
    hash: 'sha256',
    options: { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST },
  },
};
const REQUIRED_CLAIMS = ['jti', 'htm', 'htu', 'iat', 'ath'] as const;
// Members only a private or symmetric JWK has (RFC 7518 §6); a proof's header must carry a public key.
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
// A proof is a few hundred bytes (an RSA key makes it ~1 KB); anything far larger only costs parsing.
const MAX_PROOF_LENGTH = 8 * 1024;
const MAX_JTI_LENGTH = 128;
const MIN_RSA_MODULUS_CHARACTERS = Math.ceil((2048 / 8) * (4 / 3)); // 2048 bits in base64url
// Distinct proof headers (one per client key) whose key and thumbprint are kept; a browser keeps its key for a
// session.
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
  readonly thumbprint: string;
  /** The hash and the key with its algorithm's options, as node:crypto's verify takes them. */
  readonly hash: string;
  readonly key: VerifyKeyObjectInput;
}

/**
 * Checks DPoP proofs (RFC 9449 §4.3) for DPoP-bound access tokens, on every request:
 * one `DPoP` header holding a JWT with `typ` `dpop+jwt`, an algorithm from {@link DPOP_ALGORITHMS}, a
 * public `jwk` in its header whose thumbprint is the token's `cnf.jkt` and which verifies the signature;
 * `htm` the request method, `htu` `API_PUBLIC_URL` + the request path (query and fragment ignored on both
 * sides), `iat` at most `DPOP_PROOF_MAX_AGE_SECONDS` old and not in the future (both with
 * `OIDC_CLOCK_TOLERANCE_SECONDS`), `ath` the SHA-256 of the access token, and a `jti` not seen before
 * within that window: by this process (in memory), and on PostgreSQL by any replica (shared-proof-replays.ts).
 *
 * Each distinct client key is imported and thumbprinted once (bounded cache), so a request costs one
 * signature verification (node:crypto's, synchronous: WebCrypto's costs a quarter more, jose's a third), a hash
 * and the parsing of a few hundred bytes of JSON. The verifications of the proofs that arrive together are run
 * back to back ({@link SignatureBatch}).
 */
@Injectable()
export class DpopProofVerifier {
  private readonly keys = new Map<string, ClientKey>();
  private readonly replays: ProofReplayCache;
  private readonly signatures = new SignatureBatch();
  private readonly publicOrigin: string;
  private readonly maxAgeSeconds: number;
  private readonly toleranceSeconds: number;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @Optional()
    @Inject(SHARED_PROOF_REPLAYS)
    private readonly sharedReplays: SharedProofReplays | null = null,
  ) {
    this.publicOrigin = config.apiPublicUrl;
    this.maxAgeSeconds = config.dpopProofMaxAgeSeconds;
    this.toleranceSeconds = config.clockToleranceSeconds;
    this.replays = new ProofReplayCache(proofWindowMs(this.maxAgeSeconds, this.toleranceSeconds));
  }

  /**
   * Resolves when `proofHeader` (the request's `DPoP` header value) is a valid, fresh proof for this
   * request and token; records its jti.
   *
   * @throws InvalidDpopProofError naming the first rule the proof breaks.
   */
  async verify(proofHeader: string | string[] | undefined, expected: ProofExpectations): Promise<void> {
    const proof = splitProof(singleProof(proofHeader));
    const known = this.keys.get(proof.header);
    if (known !== undefined && known.thumbprint !== expected.jkt)
      throw new InvalidDpopProofError(ANOTHER_KEY);
    const clientKey = known ?? (await this.importKey(proof.header, expected.jkt));
    if (!(await this.signatures.check(() => signatureVerifies(proof, clientKey)))) {
      throw new InvalidDpopProofError('the signature does not verify with the key in its header');
    }
    const claims = this.readClaims(proof.payload);
    if (claims['htm'] !== expected.method) {
      throw new InvalidDpopProofError('the proof was made for another HTTP method (htm)');
    }
    // The request target is concatenated, never resolved against the origin: `//host/path` must not move it.
    // A client states the URL as the request names it, so the same text needs no parsing; anything else is
    // compared normalized.
    const requestUrl = `${this.publicOrigin}${expected.url.split(/[?#]/, 1)[0] ?? ''}`;
    const htu = claims['htu'];
    if (htu !== requestUrl) {
      const normalized = withoutQuery(requestUrl);
      if (normalized === undefined || withoutQuery(htu) !== normalized) {
        throw new InvalidDpopProofError('the proof was made for another URL (htu)');
      }
    }
    if (claims['ath'] !== hash('sha256', expected.accessToken, 'base64url')) {
      throw new InvalidDpopProofError('the proof was made for another access token (ath)');
    }
    const jti = claims['jti'];
    if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_LENGTH) {
      throw new InvalidDpopProofError(`the proof needs a jti of 1 to ${MAX_JTI_LENGTH} characters`);
    }
    // Last, so that only a proof that passed everything else takes a place in the cache. This process's memory
    // first (a replay to the same replica costs no write), then every replica's record.
    const used = `${clientKey.thumbprint}.${jti}`;
    if (!this.replays.use(used) || (this.sharedReplays !== null && !(await this.sharedReplays.use(used)))) {
      throw new InvalidDpopProofError('the proof was already used (jti)');
    }
    // Kept only once a proof signed by the key has verified: a request can never make the cache hold a key
    // that the holder's own proofs would then fail against.
    if (known === undefined) this.remember(proof.header, clientKey);
  }

  /** The proof's claims, once they are all there and its `iat` is within the window (RFC 9449 §4.3, 11). */
  private readClaims(payload: string): Record<string, unknown> {
    const claims = decodeJson(payload);
    if (claims === undefined) throw new InvalidDpopProofError('the proof is not a valid JWT');
    for (const claim of REQUIRED_CLAIMS) {
      if (claims[claim] === undefined) throw new InvalidDpopProofError(`the proof has no ${claim} claim`);
    }
    const iat = claims['iat'];
    if (typeof iat !== 'number' || !Number.isFinite(iat)) {
      throw new InvalidDpopProofError("the proof's iat claim is invalid");
    }
    const now = Math.floor(Date.now() / 1000);
    if (iat > now + this.toleranceSeconds)
      throw new InvalidDpopProofError('the proof is issued in the future (iat)');
    if (now - iat > this.maxAgeSeconds + this.toleranceSeconds) {
      throw new InvalidDpopProofError('the proof is too old (iat)');
    }
    // Not needed in a proof, but honoured when present, as for any JWT (RFC 7519 §4.1.4, 4.1.5).
    const { exp, nbf } = claims;
    if (exp !== undefined && (typeof exp !== 'number' || exp <= now - this.toleranceSeconds)) {
      throw new InvalidDpopProofError("the proof's exp claim is invalid or past");
    }
    if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now + this.toleranceSeconds)) {
      throw new InvalidDpopProofError("the proof's nbf claim is invalid or not yet reached");
    }
    return claims;
  }

  /**
   * The proof's key, imported, when its thumbprint is the token's `jkt`. Only such keys are imported (once per
   * distinct proof header, see {@link remember}: a client sends the same header with every proof, so a known
   * one is neither parsed nor imported again): a proof with any other key is refused after one hash. The key
   * is built from the RFC 7638 members alone, so nothing else the header says (`key_ops`, `use`, `ext`, `alg`
   * of the jwk) can change how it is imported.
   */
  private async importKey(encodedHeader: string, jkt: string): Promise<ClientKey> {
    const { alg, jwk } = readProofHeader(encodedHeader);
    const publicKey = requiredMembers(jwk);
    let thumbprint: string;
    try {
      thumbprint = await calculateJwkThumbprint(publicKey, 'sha256');
    } catch {
      throw new InvalidDpopProofError(`the jwk in the proof's header is not a usable ${alg} public key`);
    }
    if (thumbprint !== jkt) throw new InvalidDpopProofError(ANOTHER_KEY);
    try {
      const key = createPublicKey({ key: publicKey, format: 'jwk' });
      const signature = SIGNATURES[alg];
      return { thumbprint, hash: signature.hash, key: { key, ...signature.options } };
    } catch {
      throw new InvalidDpopProofError(`the jwk in the proof's header is not a usable ${alg} public key`);
    }
  }

  /** Keeps a proof header's imported key once a proof verified, evicting the oldest beyond {@link MAX_KEYS}. */
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

/** A compact JWS's three parts (RFC 7515 §7.1), still encoded, and what its signature covers. */
interface ProofParts {
  readonly header: string;
  readonly payload: string;
  readonly signature: string;
  readonly signingInput: string;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function splitProof(proof: string): ProofParts {
  const parts = proof.split('.');
  // An empty signature is left to the header's check, which names the algorithm (`none`) as the fault.
  if (parts.length !== 3 || !parts.every((part) => BASE64URL.test(part)) || !parts[0] || !parts[1]) {
    throw new InvalidDpopProofError('the DPoP proof is not a JWT');
  }
  const [header, payload, signature] = parts as [string, string, string];
  return { header, payload, signature, signingInput: `${header}.${payload}` };
}

/** Whether the proof's signature verifies with the client's key; a malformed signature does not. */
function signatureVerifies(proof: ProofParts, { hash, key }: ClientKey): boolean {
  try {
    return verifySignature(
      hash,
      Buffer.from(proof.signingInput, 'latin1'),
      key,
      Buffer.from(proof.signature, 'base64url'),
    );
  } catch {
    return false;
  }
}

/** A base64url-encoded JSON object, or undefined for anything else. */
function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function readProofHeader(encoded: string): { alg: DpopAlgorithm; jwk: JWK } {
  const header = decodeJson(encoded);
  if (header === undefined) throw new InvalidDpopProofError('the DPoP proof is not a JWT');
  if (header['typ'] !== 'dpop+jwt') throw new InvalidDpopProofError('the proof must have typ dpop+jwt');
  // No extension is understood here, so none may be critical (RFC 7515 §4.1.11; also rules out b64 false).
  if ('crit' in header) throw new InvalidDpopProofError('the proof names critical header parameters (crit)');
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
  const expected = KEY_TYPES[alg as DpopAlgorithm];
  const { kty, crv, n } = jwk as Record<string, unknown>;
  if (kty !== expected.kty || (expected.crv !== undefined && crv !== expected.crv)) {
    throw new InvalidDpopProofError(`the jwk in the proof is not a key for ${alg}`);
  }
  if (kty === 'RSA' && (typeof n !== 'string' || n.length < MIN_RSA_MODULUS_CHARACTERS)) {
    throw new InvalidDpopProofError('the RSA key in the proof is shorter than 2048 bits');
  }
  return { alg: alg as DpopAlgorithm, jwk: jwk };
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
