import { createPublicKey, type KeyObject } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { InvalidTokenError, IssuerUnavailableError } from './auth.errors.js';
import { countJwksFetch } from '../metrics/index.js';

const FETCH_TIMEOUT_MS = 5_000;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
// A JWKS document is a few KB; a bigger one is a misconfiguration or an attack on our memory.
const MAX_JWKS_BYTES = 256 * 1024;
// An issuer publishes a handful of keys; anything beyond is churn or abuse.
const MAX_KEYS = 64;
// `kid` comes from the token: it is only ever used as a map key, and a long one is refused before that.
const MAX_KID_LENGTH = 256;
const MIN_RSA_BITS = 2048;

/** Whether the issuer's keys are loaded; reported by the readiness check. */
export type IssuerState = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/** A verification key from the issuer's JWKS, with the algorithm it is restricted to (if the JWK says). */
export interface SigningKey {
  readonly key: KeyObject;
  readonly alg: string | undefined;
}

/** A clock, injectable so that tests can move time without sleeping. */
export type Clock = () => number;

/**
 * The identity provider's signing keys, fetched from the `jwks_uri` its discovery document names (never
 * from anything a token says: `jku`, `x5u`, `jwk` and `x5c` are ignored here and refused by the strategy).
 *
 * - Discovery and the first JWKS load run in the background with backoff, so the API starts while the
 *   issuer is down; until then every token gets 503 issuer_unavailable.
 * - Keys are served as `KeyObject`s (jsonwebtoken re-parses a PEM string on every verification).
 * - The JWKS is refreshed every `jwksCacheSeconds`; a failed refresh keeps the keys we have, so tokens
 *   signed with known keys keep working while the issuer is unreachable.
 * - An unknown `kid` triggers a refetch (a rotated key), but at most once per `jwksRefetchIntervalSeconds`:
 *   a flood of random kids costs the issuer one request per interval, and a rotated key is accepted at
 *   the latest one interval after it first appears.
 */
@Injectable()
export class SigningKeySource implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SigningKeySource');
  private jwksUri: string | undefined;
  private keys = new Map<string, SigningKey>();
  private loaded = false;
  private lastFailure = 'discovery not started';
  private retryDelayMs = FIRST_RETRY_MS;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private lastFetchAt = Number.NEGATIVE_INFINITY;
  private lastFetchFailed = false;
  private inFlight: Promise<void> | undefined;
  /** Counts JWKS requests; tests use it to prove the refetch limit. */
  fetchCount = 0;
  now: Clock = Date.now;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    void this.discover();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  state(): IssuerState {
    return this.loaded ? { ready: true } : { ready: false, reason: this.lastFailure };
  }

  /** A key already in the cache, without any I/O: the fast path of every request. */
  cachedKey(kid: string): SigningKey | undefined {
    return this.keys.get(kid);
  }

  /**
   * Whether `key` is still one of the issuer's published keys: false once a refresh no longer finds it
   * (rotated out, or replaced under the same kid). Cached verified tokens are only served while it is true.
   */
  isPublished(kid: string, key: SigningKey): boolean {
    return this.keys.get(kid) === key;
  }

  /**
   * The verification key for a token's `kid`, refetching the JWKS for an unknown kid within the limit.
   *
   * @throws IssuerUnavailableError while the keys cannot be fetched; InvalidTokenError for a kid the
   *   issuer does not publish.
   */
  async getKey(kid: string): Promise<SigningKey> {
    if (kid.length === 0 || kid.length > MAX_KID_LENGTH) throw new InvalidTokenError('unusable key id (kid)');
    const cached = this.keys.get(kid);
    if (cached) return cached;
    if (!this.loaded) throw new IssuerUnavailableError(Math.max(1, Math.ceil(this.retryDelayMs / 1000)));
    const intervalMs = this.config.jwksRefetchIntervalSeconds * 1000;
    const sinceLastFetch = this.now() - this.lastFetchAt;
    if (sinceLastFetch >= intervalMs) {
      await this.refetch();
    } else if (this.lastFetchFailed) {
      // The last attempt failed moments ago: we cannot tell whether this kid is the issuer's.
      throw new IssuerUnavailableError(Math.max(1, Math.ceil((intervalMs - sinceLastFetch) / 1000)));
    } else if (this.inFlight) {
      await this.inFlight;
    }
    const key = this.keys.get(kid);
    if (key) return key;
    if (this.lastFetchFailed) {
      throw new IssuerUnavailableError(Math.max(1, Math.ceil(intervalMs / 1000)));
    }
    throw new InvalidTokenError('signed by a key the issuer does not publish');
  }

  /** One JWKS fetch at a time; concurrent callers share it. */
  private refetch(): Promise<void> {
    this.inFlight ??= this.loadKeys()
      .catch((error: unknown) => {
        this.logger.warn(`Refreshing signing keys failed (${describe(error)}); keeping the cached keys`);
      })
      .finally(() => {
        this.inFlight = undefined;
      });
    return this.inFlight;
  }

  private async loadKeys(): Promise<void> {
    if (!this.jwksUri) throw new Error('no jwks_uri yet');
    this.lastFetchAt = this.now();
    this.fetchCount += 1;
    try {
      const response = await fetch(this.jwksUri, {
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
        headers: { accept: 'application/json' },
      });
      if (!response.ok) throw new Error(`${this.jwksUri} answered ${response.status}`);
      const text = await response.text();
      if (text.length > MAX_JWKS_BYTES)
        throw new Error(`${this.jwksUri} is larger than ${MAX_JWKS_BYTES} bytes`);
      this.keys = keepUnchanged(this.keys, parseJwks(JSON.parse(text), this.config.oidcAlgorithms));
      this.lastFetchFailed = false;
      countJwksFetch('ok');
    } catch (error) {
      this.lastFetchFailed = true;
      countJwksFetch('failed');
      throw error;
    }
  }

  private async discover(): Promise<void> {
    if (this.stopped) return;
    const discoveryUrl = this.config.oidcDiscoveryUrl;
    try {
      if (!this.jwksUri) {
        const response = await fetch(discoveryUrl, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
        if (!response.ok) throw new Error(`${discoveryUrl} answered ${response.status}`);
        const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
        if (document.issuer !== this.config.oidcIssuerUrl) {
          throw new Error(
            `discovery names issuer ${JSON.stringify(document.issuer)}, expected ${this.config.oidcIssuerUrl}`,
          );
        }
        if (typeof document.jwks_uri !== 'string') throw new Error(`${discoveryUrl} has no jwks_uri`);
        this.jwksUri = document.jwks_uri;
      }
      await this.loadKeys();
      if (this.stopped) return;
      this.loaded = true;
      this.logger.log(`Loaded ${this.keys.size} signing key(s) from ${this.jwksUri}`);
      this.schedule(() => this.refreshPeriodically(), this.config.jwksCacheSeconds * 1000);
    } catch (error) {
      if (this.stopped) return;
      this.lastFailure = describe(error);
      this.logger.warn(`Issuer discovery failed (${this.lastFailure}); retrying in ${this.retryDelayMs} ms`);
      this.schedule(() => this.discover(), this.retryDelayMs);
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, MAX_RETRY_MS);
    }
  }

  private async refreshPeriodically(): Promise<void> {
    await this.refetch();
    this.schedule(() => this.refreshPeriodically(), this.config.jwksCacheSeconds * 1000);
  }

  private schedule(task: () => Promise<void>, delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void task(), delayMs);
    this.timer.unref();
  }
}

/**
 * The usable signature keys of a JWKS document, by kid: public keys only, `use` absent or `sig`, and an
 * `alg` (when the JWK has one) on the allowlist. Keys without a kid cannot be matched to a token and are
 * skipped, and so are RSA keys shorter than 2048 bits.
 */
export function parseJwks(document: unknown, algorithms: readonly string[]): Map<string, SigningKey> {
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error('the JWKS has no "keys" array');
  const result = new Map<string, SigningKey>();
  for (const jwk of keys.slice(0, MAX_KEYS) as Array<Record<string, unknown>>) {
    if (jwk === null || typeof jwk !== 'object') continue;
    const { kid, use, alg, kty } = jwk;
    if (typeof kid !== 'string' || kid.length === 0 || kid.length > MAX_KID_LENGTH) continue;
    if (use !== undefined && use !== 'sig') continue;
    if (alg !== undefined && (typeof alg !== 'string' || !algorithms.includes(alg))) continue;
    if (kty !== 'RSA' && kty !== 'EC') continue;
    // Private members must never be in a JWKS; refusing the key is safer than stripping them.
    if ('d' in jwk) continue;
    try {
      const key = createPublicKey({ key: jwk, format: 'jwk' });
      // RSA keys below 2048 bits can be factored by a determined attacker (NIST SP 800-131A).
      if (kty === 'RSA' && (key.asymmetricKeyDetails?.modulusLength ?? 0) < MIN_RSA_BITS) continue;
      result.set(kid, { key, alg: typeof alg === 'string' ? alg : undefined });
    } catch {
      // An unparsable key is skipped; the others stay usable.
    }
  }
  return result;
}

/**
 * The fresh key set, reusing the previous `SigningKey` object for every key that did not change, so that
 * identity (see `isPublished`) means "the same key material is still published".
 */
function keepUnchanged(
  previous: ReadonlyMap<string, SigningKey>,
  fresh: Map<string, SigningKey>,
): Map<string, SigningKey> {
  for (const [kid, key] of fresh) {
    const old = previous.get(kid);
    if (old && old.alg === key.alg && old.key.equals(key.key)) fresh.set(kid, old);
  }
  return fresh;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
