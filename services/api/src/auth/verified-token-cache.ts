import type { AuthenticatedUser } from './access-token.js';
import type { SigningKey } from './signing-key-source.js';

/** A token whose signature and claims passed, with the issuer key that verified it. */
export interface VerifiedToken {
  readonly user: AuthenticatedUser;
  readonly kid: string;
  readonly signingKey: SigningKey;
}

/**
 * Tokens whose signature and claims passed, so that a client sending the same token again skips the
 * signature check (the dominant cost of a request). Only that: a DPoP proof is checked on every request,
 * cached token or not. Bounded in size (oldest entry evicted first); an entry is never used at or after its
 * token's `exp`, without leeway, nor once `isPublished` says its signing key has left the issuer's JWKS.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, VerifiedToken>();

  constructor(private readonly maxEntries = 10_000) {}

  /**
   * The entry for `token`, if its token has not expired at `nowSeconds` and `isPublished(kid, key)` still
   * holds for the key it was verified with; an entry that fails either is dropped.
   */
  get(
    token: string,
    nowSeconds: number,
    isPublished: (kid: string, key: SigningKey) => boolean = () => true,
  ): VerifiedToken | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.user.expiresAt <= nowSeconds || !isPublished(entry.kid, entry.signingKey)) {
      this.entries.delete(token);
      return undefined;
    }
    return entry;
  }

  set(token: string, entry: VerifiedToken): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, entry);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
