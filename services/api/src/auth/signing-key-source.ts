import { createPublicKey, type KeyObject } from 'node:crypto';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { JwksClient } from 'jwks-rsa';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { InvalidTokenError, IssuerUnavailableError } from '../common/errors/domain-errors.js';

const FETCH_TIMEOUT_MS = 5_000;
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;
// Bounds the KeyObject cache; an issuer publishes a handful of keys, anything beyond is churn or abuse.
const MAX_CACHED_KEYS = 32;

/** Whether the issuer's keys are loaded; reported by the readiness check. */
export type IssuerState = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/**
 * The identity provider's signing keys. Discovers `jwks_uri` from the issuer's OpenID configuration in
 * the background (retrying with backoff, so the API starts even when the issuer is down), then serves
 * keys as `KeyObject`s: jsonwebtoken re-parses a PEM string on every verification, a KeyObject it uses
 * as is.
 */
@Injectable()
export class SigningKeySource implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('SigningKeySource');
  private client: JwksClient | undefined;
  private readonly keys = new Map<string, KeyObject>();
  private lastFailure = 'discovery not started';
  private retryDelayMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  onApplicationBootstrap(): void {
    void this.discover();
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  state(): IssuerState {
    return this.client ? { ready: true } : { ready: false, reason: this.lastFailure };
  }

  /**
   * The verification key for a token's `kid`.
   *
   * @throws IssuerUnavailableError while the keys cannot be fetched; InvalidTokenError for an unknown `kid`.
   */
  async getKey(kid: string | undefined): Promise<KeyObject> {
    const cacheKey = kid ?? '';
    const cached = this.keys.get(cacheKey);
    if (cached) return cached;
    if (!this.client) throw new IssuerUnavailableError(Math.ceil(this.retryDelayMs / 1000));
    let pem: string;
    try {
      pem = (await this.client.getSigningKey(kid)).getPublicKey();
    } catch (error) {
      // jwks-rsa's rate limiter refuses refetches for unknown kids too; either way the kid is not the issuer's.
      const name = error instanceof Error ? error.name : '';
      if (name === 'SigningKeyNotFoundError' || name === 'JwksRateLimitError') {
        throw new InvalidTokenError('signed by an unknown key');
      }
      this.logger.warn(
        `Fetching signing keys failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      throw new IssuerUnavailableError(5);
    }
    if (this.keys.size >= MAX_CACHED_KEYS) this.keys.clear();
    const key = createPublicKey(pem);
    this.keys.set(cacheKey, key);
    return key;
  }

  private async discover(): Promise<void> {
    if (this.stopped) return;
    const discoveryUrl = this.config.oidcDiscoveryUrl;
    try {
      const response = await fetch(discoveryUrl, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (!response.ok) throw new Error(`${discoveryUrl} answered ${response.status}`);
      const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
      if (document.issuer !== this.config.oidcIssuerUrl) {
        throw new Error(
          `discovery names issuer ${JSON.stringify(document.issuer)}, expected ${this.config.oidcIssuerUrl}`,
        );
      }
      if (typeof document.jwks_uri !== 'string') throw new Error(`${discoveryUrl} has no jwks_uri`);
      const client = new JwksClient({
        jwksUri: document.jwks_uri,
        cache: true,
        cacheMaxAge: 10 * 60_000,
        rateLimit: true,
        jwksRequestsPerMinute: 10,
        timeout: FETCH_TIMEOUT_MS,
      });
      // Loading the keys once proves the JWKS is reachable before we call ourselves ready.
      const keys = await client.getSigningKeys();
      if (this.stopped) return;
      this.client = client;
      this.logger.log(`Loaded ${keys.length} signing key(s) from ${document.jwks_uri}`);
    } catch (error) {
      if (this.stopped) return;
      this.lastFailure = describe(error);
      this.logger.warn(`Issuer discovery failed (${this.lastFailure}); retrying in ${this.retryDelayMs} ms`);
      this.retryTimer = setTimeout(() => void this.discover(), this.retryDelayMs);
      this.retryTimer.unref();
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, MAX_RETRY_MS);
    }
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
