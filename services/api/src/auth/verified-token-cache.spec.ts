import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AuthenticatedUser } from './access-token.js';
import type { SigningKey } from './signing-key-source.js';
import { type VerifiedToken, VerifiedTokenCache } from './verified-token-cache.js';

describe('VerifiedTokenCache', () => {
  const signingKey: SigningKey = {
    key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey,
    alg: 'ES256',
  };
  const entry = (expiresAt: number, key: SigningKey = signingKey): VerifiedToken => {
    const user: AuthenticatedUser = {
      sub: 's',
      username: 'u',
      email: null,
      name: null,
      roles: [],
      actor: 'u',
      clientId: null,
      expiresAt,
      boundKeyThumbprint: null,
    };
    return { user, kid: 'k1', signingKey: key };
  };

  it('never serves an entry at or after the token expiry', () => {
    const cache = new VerifiedTokenCache();
    cache.set('t', entry(1000));
    expect(cache.get('t', 999)).toBeDefined();
    expect(cache.get('t', 1000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('is bounded in size, evicting the oldest entry', () => {
    const cache = new VerifiedTokenCache(2);
    cache.set('a', entry(10));
    cache.set('b', entry(10));
    cache.set('c', entry(10));
    expect(cache.size).toBe(2);
    expect(cache.get('a', 0)).toBeUndefined();
    expect(cache.get('c', 0)).toBeDefined();
  });

  it('drops an entry as soon as the key that verified it is no longer published', () => {
    const cache = new VerifiedTokenCache();
    const published = new Set<SigningKey>([signingKey]);
    const isPublished = (kid: string, key: SigningKey) => kid === 'k1' && published.has(key);
    cache.set('t', entry(1000));
    expect(cache.get('t', 0, isPublished)?.user.sub).toBe('s');
    published.clear();
    expect(cache.get('t', 0, isPublished)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
