import { describe, expect, it } from 'vitest';
import { judgeCanary } from './rollback-policy.js';

const policy = { minSamples: 50, minDifference: 0.02, z: 2.33 };

describe('judgeCanary', () => {
  it('rolls back a canary that clearly fails more than stable', () => {
    const verdict = judgeCanary({ attempts: 60, failures: 30 }, { attempts: 200, failures: 2 }, policy);
    expect(verdict.rollBack).toBe(true);
    // Pooled p = 32/260; se = sqrt(p(1-p)(1/60+1/200)); z = (0.5 - 0.01)/se ≈ 10.13.
    expect(verdict.z).toBeCloseTo(10.13, 2);
    expect(verdict.reason).toMatch(
      /canary 30\/60 failed \(50.0 %\), stable 2\/200 \(1.0 %\).*z = 10\.13 > 2.33/,
    );
  });

  it('waits for enough samples on both sides, however bad the canary looks', () => {
    expect(judgeCanary({ attempts: 49, failures: 49 }, { attempts: 500, failures: 0 }, policy).rollBack).toBe(
      false,
    );
    expect(
      judgeCanary({ attempts: 500, failures: 400 }, { attempts: 49, failures: 0 }, policy),
    ).toMatchObject({
      rollBack: false,
      z: null,
    });
  });

  it('keeps a canary whose excess is within chance or below the minimum difference', () => {
    // 6 % vs 4 % on 100 each: z ≈ 0.65.
    expect(judgeCanary({ attempts: 100, failures: 6 }, { attempts: 100, failures: 4 }, policy).rollBack).toBe(
      false,
    );
    // 1.5 % vs 0.5 % on 100,000 each: significant (z ≈ 22) but within the 2-point margin.
    const large = judgeCanary(
      { attempts: 100_000, failures: 1_500 },
      { attempts: 100_000, failures: 500 },
      policy,
    );
    expect(large.z!).toBeGreaterThan(20);
    expect(large.rollBack).toBe(false);
    // No failures at all: z is 0, not NaN.
    expect(judgeCanary({ attempts: 100, failures: 0 }, { attempts: 100, failures: 0 }, policy).z).toBe(0);
  });

  it('never rolls back a canary that fails less than stable', () => {
    expect(
      judgeCanary({ attempts: 500, failures: 0 }, { attempts: 500, failures: 100 }, policy).rollBack,
    ).toBe(false);
  });
});
