import { describe, expect, it } from 'vitest';
import { ProofReplayCache } from './proof-replay-cache.js';

describe('ProofReplayCache', () => {
  it('accepts an id once and refuses it for at least one full span after', () => {
    let now = 0;
    const cache = new ProofReplayCache(1_000, 100, () => now);
    expect(cache.use('a')).toBe(true);
    for (now = 0; now <= 1_000; now += 100) expect(cache.use('a')).toBe(false);
    now = 999 + 1_000; // the generation holding "a" is now the previous one
    expect(cache.use('a')).toBe(false);
  });

  it('forgets ids after two spans, when their proofs are too old to be accepted anyway', () => {
    let now = 0;
    const cache = new ProofReplayCache(1_000, 100, () => now);
    cache.use('a');
    now = 2_000;
    expect(cache.use('a')).toBe(true);
    expect(cache.size).toBe(1);
  });

  it('stays within its bound by dropping the older generation first', () => {
    const cache = new ProofReplayCache(60_000, 4, () => 0);
    for (const id of ['a', 'b', 'c', 'd', 'e']) expect(cache.use(id)).toBe(true);
    expect(cache.size).toBeLessThanOrEqual(4);
    expect(cache.use('e')).toBe(false);
  });
});
