import type { AuthenticatedUser } from './access-token.js';

/**
 * Tokens that passed every check, so that a client sending the same token again skips the signature
 * check (the dominant cost of a request). Bounded in size (oldest entry evicted first) and an entry is
 * never used at or after its token's `exp`, without leeway.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, AuthenticatedUser>();

  constructor(private readonly maxEntries = 10_000) {}

  get(token: string, nowSeconds: number): AuthenticatedUser | undefined {
    const user = this.entries.get(token);
    if (!user) return undefined;
    if (user.expiresAt <= nowSeconds) {
      this.entries.delete(token);
      return undefined;
    }
    return user;
  }

  set(token: string, user: AuthenticatedUser): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(token, user);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
