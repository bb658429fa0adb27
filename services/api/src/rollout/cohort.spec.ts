import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cohortBucket, inCanary } from './cohort.js';

const subs = Array.from({ length: 10_000 }, (_, index) => `user-${index}`);

describe('cohortBucket', () => {
  it('is the first four bytes of SHA-256("<remote>:<sub>"), big-endian, mod 100', () => {
    const digest = createHash('sha256').update('time-off:4f1c2d').digest();
    const expected = ((digest[0]! << 24) >>> 0) + (digest[1]! << 16) + (digest[2]! << 8) + digest[3]!;
    expect(cohortBucket('time-off', '4f1c2d')).toBe(expected % 100);
  });

  it('spreads people evenly: at 50 % about half of 10,000 subjects are in', () => {
    const inside = subs.filter((sub) => cohortBucket('time-off', sub) < 50).length;
    // Binomial(10000, 0.5): ±4 standard deviations is ±200.
    expect(inside).toBeGreaterThan(4_800);
    expect(inside).toBeLessThan(5_200);
  });

  it('gives each remote its own cohorts', () => {
    const both = subs.filter(
      (sub) => cohortBucket('time-off', sub) < 50 && cohortBucket('expenses', sub) < 50,
    );
    // Independent halves overlap by a quarter, not by a half.
    expect(both.length).toBeGreaterThan(2_300);
    expect(both.length).toBeLessThan(2_700);
  });
});

describe('inCanary', () => {
  const person = (sub: string, roles: string[] = []) => ({ sub, roles });

  it('keeps whoever was in at a smaller share when the share widens', () => {
    const at10 = subs.filter((sub) => inCanary({ percent: 10, roles: [] }, 'time-off', person(sub)));
    const at50 = new Set(subs.filter((sub) => inCanary({ percent: 50, roles: [] }, 'time-off', person(sub))));
    expect(at10.length).toBeGreaterThan(800);
    expect(at10.every((sub) => at50.has(sub))).toBe(true);
  });

  it('takes everybody at 100 %, nobody at 0 % unless they hold one of its roles', () => {
    expect(subs.every((sub) => inCanary({ percent: 100, roles: [] }, 'x', person(sub)))).toBe(true);
    expect(subs.some((sub) => inCanary({ percent: 0, roles: [] }, 'x', person(sub)))).toBe(false);
    expect(inCanary({ percent: 0, roles: ['beta-testers'] }, 'x', person('a', ['beta-testers']))).toBe(true);
    expect(inCanary({ percent: 0, roles: ['beta-testers'] }, 'x', person('a', ['atrium-user']))).toBe(false);
  });
});
