import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { judgeCanary, type Tally } from './rollback-policy.js';

const policy = { minSamples: 50, minReporters: 5, minDifference: 0.02, z: 2.33 };
const tally = (attempts: number, failures: number, reporters = 10): Tally => ({
  attempts,
  failures,
  reporters,
});

describe('judgeCanary', () => {
  it('rolls back a canary that clearly fails more than stable', () => {
    const verdict = judgeCanary(tally(60, 30, 12), tally(200, 2, 40), policy);
    expect(verdict.rollBack).toBe(true);
    // Pooled p = 32/260; se = sqrt(p(1-p)(1/60+1/200)); z = (0.5 - 0.01)/se ≈ 10.13.
    expect(verdict.z).toBeCloseTo(10.13, 2);
    expect(verdict.reason).toMatch(
      /canary 30\/60 failed \(50.0 %\) from 12 people, stable 2\/200 \(1.0 %\) from 40 people.*z = 10\.13 > 2.33/,
    );
  });

  it('waits for enough samples on both sides, however bad the canary looks', () => {
    expect(judgeCanary(tally(49, 49), tally(500, 0), policy).rollBack).toBe(false);
    expect(judgeCanary(tally(500, 400), tally(49, 0), policy)).toMatchObject({ rollBack: false, z: null });
  });

  it('waits for enough distinct people on both sides, however many loads a few of them claim', () => {
    const fewAccounts = judgeCanary(tally(500, 500, 4), tally(500, 0, 100), policy);
    expect(fewAccounts).toMatchObject({ rollBack: false, z: null });
    expect(fewAccounts.reason).toMatch(/from 4 people.*: fewer than 5 people reporting on a side$/);
    expect(judgeCanary(tally(500, 500, 100), tally(500, 0, 1), policy).rollBack).toBe(false);
    expect(judgeCanary(tally(500, 500, 5), tally(500, 0, 5), policy).rollBack).toBe(true);
  });

  it('keeps a canary whose excess is within chance or below the minimum difference', () => {
    // 6 % vs 4 % on 100 each: z ≈ 0.65.
    expect(judgeCanary(tally(100, 6), tally(100, 4), policy).rollBack).toBe(false);
    // 1.5 % vs 0.5 % on 100,000 each: significant (z ≈ 22) but within the 2-point margin.
    const large = judgeCanary(tally(100_000, 1_500), tally(100_000, 500), policy);
    expect(large.z!).toBeGreaterThan(20);
    expect(large.rollBack).toBe(false);
    // No failures at all: z is 0, not NaN.
    expect(judgeCanary(tally(100, 0), tally(100, 0), policy).z).toBe(0);
  });

  it('never rolls back a canary that fails less than stable', () => {
    expect(judgeCanary(tally(500, 0), tally(500, 100), policy).rollBack).toBe(false);
  });

  it('counts stable failures beyond its loads as loads that all failed, so stable cannot hide a broken canary', () => {
    // A stable side claiming more failures than attempts would make its rate exceed 1 and z NaN.
    const verdict = judgeCanary(tally(100, 100), tally(100, 10_000), policy);
    expect(verdict.stableRate).toBe(1);
    expect(verdict.z).toBe(0);
    expect(verdict.rollBack).toBe(false);
  });

  it('shows a capped share of loads to one decimal', () => {
    expect(judgeCanary(tally(52.5, 12.25, 6), tally(60, 0, 6), policy).reason).toMatch(
      /^canary 12\.3\/52\.5 failed \(23\.3 %\) from 6 people, stable 0\/60/,
    );
  });

  describe('for every input', () => {
    const anyNumber = fc.oneof(
      fc.double({ noDefaultInfinity: false, noNaN: false }),
      fc.integer({ min: -10, max: 1_000_000 }),
      fc.constantFrom(0, 1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0),
    );
    const anyTally = fc.record({ attempts: anyNumber, failures: anyNumber, reporters: anyNumber });
    /** Tallies the API can produce: attempts and people whole, failures (capped shares) within attempts. */
    const realTally = fc
      .record({
        attempts: fc.integer({ min: 0, max: 10_000_000 }),
        failureShare: fc.double({ min: 0, max: 1, noNaN: true }),
        reporters: fc.integer({ min: 0, max: 100_000 }),
      })
      .map(({ attempts, failureShare, reporters }) => tally(attempts, attempts * failureShare, reporters));
    const anyPolicy = fc.record({
      minSamples: fc.integer({ min: 10, max: 1_000_000 }),
      minReporters: fc.integer({ min: 1, max: 1_000 }),
      minDifference: fc.double({ min: 0, max: 1, noNaN: true }),
      z: fc.double({ min: 1, max: 10, noNaN: true }),
    });

    it('gives rates within 0..1, a finite z or none, and a reason without NaN', () => {
      fc.assert(
        fc.property(anyTally, anyTally, anyPolicy, (canary, stable, thresholds) => {
          const verdict = judgeCanary(canary, stable, thresholds);
          for (const rate of [verdict.canaryRate, verdict.stableRate]) {
            expect(rate).toBeGreaterThanOrEqual(0);
            expect(rate).toBeLessThanOrEqual(1);
          }
          expect(verdict.z === null || Number.isFinite(verdict.z)).toBe(true);
          expect(verdict.reason).not.toMatch(/NaN|Infinity/);
          expect(typeof verdict.rollBack).toBe('boolean');
        }),
        { numRuns: 2_000 },
      );
    });

    it('never rolls back a canary that fails no more often than stable', () => {
      fc.assert(
        fc.property(realTally, realTally, anyPolicy, (canary, stable, thresholds) => {
          const verdict = judgeCanary(canary, stable, thresholds);
          if (verdict.canaryRate <= verdict.stableRate) expect(verdict.rollBack).toBe(false);
        }),
        { numRuns: 2_000 },
      );
    });

    it('never rolls back on fewer loads or people than the policy asks of either side', () => {
      fc.assert(
        fc.property(realTally, realTally, anyPolicy, (canary, stable, thresholds) => {
          const short =
            Math.min(canary.attempts, stable.attempts) < thresholds.minSamples ||
            Math.min(canary.reporters, stable.reporters) < thresholds.minReporters;
          if (short)
            expect(judgeCanary(canary, stable, thresholds)).toMatchObject({ rollBack: false, z: null });
        }),
        { numRuns: 2_000 },
      );
    });

    it('rolls back no less when the canary fails more, all else equal', () => {
      fc.assert(
        fc.property(
          realTally,
          realTally,
          anyPolicy,
          fc.double({ min: 0, max: 1, noNaN: true }),
          (canary, stable, thresholds, more) => {
            const worse = {
              ...canary,
              failures: canary.failures + (canary.attempts - canary.failures) * more,
            };
            if (judgeCanary(canary, stable, thresholds).rollBack) {
              expect(judgeCanary(worse, stable, thresholds).rollBack).toBe(true);
            }
          },
        ),
        { numRuns: 2_000 },
      );
    });
  });
});
