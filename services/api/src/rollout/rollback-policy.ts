/**
 * Loads of one version since its canary started, as the rollback counts them: how many were tried and how
 * many failed (to load, or to render), each person's share capped per window (see CanaryReporter), and how
 * many distinct people reported them. Failures may be fractional: a capped share keeps its person's rate.
 */
export interface Tally {
  readonly attempts: number;
  readonly failures: number;
  readonly reporters: number;
}

/**
 * The configured thresholds (ROLLBACK_MIN_SAMPLES, ROLLBACK_MIN_REPORTERS, ROLLBACK_MIN_DIFFERENCE,
 * ROLLBACK_Z).
 */
export interface RollbackPolicy {
  readonly minSamples: number;
  readonly minReporters: number;
  readonly minDifference: number;
  readonly z: number;
}

export interface Verdict {
  readonly rollBack: boolean;
  /** One sentence: what was compared and why it does or does not roll back. */
  readonly reason: string;
  /** Failure rates, always within 0..1. */
  readonly canaryRate: number;
  readonly stableRate: number;
  /**
   * The one-sided two-proportion z statistic (always finite), or null when it is not computed (too few loads or
   * people on a side).
   */
  readonly z: number | null;
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)} %`;
/** A count as the sentence shows it: whole numbers as they are, a capped (fractional) share to one decimal. */
const amount = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const people = (count: number) => `${count} ${count === 1 ? 'person' : 'people'}`;

/**
 * A tally as the statistic may use it, whatever the numbers it was given: non-negative and finite, and never
 * more failures than attempts. The API only adds up reports its schema accepted, which keep to this already;
 * the test is for the rule, so no input (a database edited by hand, a future bug) turns the verdict into NaN.
 */
function sane({ attempts, failures, reporters }: Tally): Tally {
  const count = (value: number) => (Number.isFinite(value) && value > 0 ? value : 0);
  const tried = count(attempts);
  return { attempts: tried, failures: Math.min(count(failures), tried), reporters: count(reporters) };
}

/**
 * Whether a canary fails more than the stable version, beyond chance: a one-sided two-proportion z-test with
 * pooled variance, H0 "the canary fails no more often than stable". It rolls back when
 *   - both sides have at least `minSamples` attempts and `minReporters` distinct people (small samples, or
 *     a few accounts however many loads they claim, prove nothing either way),
 *   - the canary's failure rate exceeds stable's by more than `minDifference` (a practically relevant gap),
 *   - z = (p_canary - p_stable) / sqrt(p (1 - p) (1/n_canary + 1/n_stable)) > `z`, p the pooled rate
 *     (2.33: about one false alarm in a hundred checks when both are equally good).
 * Defined for every input: rates stay within 0..1 and z is finite.
 */
export function judgeCanary(canaryTally: Tally, stableTally: Tally, policy: RollbackPolicy): Verdict {
  const canary = sane(canaryTally);
  const stable = sane(stableTally);
  const canaryRate = canary.attempts ? canary.failures / canary.attempts : 0;
  const stableRate = stable.attempts ? stable.failures / stable.attempts : 0;
  const compared =
    `canary ${amount(canary.failures)}/${amount(canary.attempts)} failed (${percent(canaryRate)}) ` +
    `from ${people(canary.reporters)}, stable ${amount(stable.failures)}/${amount(stable.attempts)} ` +
    `(${percent(stableRate)}) from ${people(stable.reporters)}`;
  const wait = (why: string): Verdict => ({
    rollBack: false,
    reason: `${compared}: ${why}`,
    canaryRate,
    stableRate,
    z: null,
  });
  if (canary.attempts < policy.minSamples || stable.attempts < policy.minSamples) {
    return wait(`fewer than ${policy.minSamples} loads on a side`);
  }
  if (canary.reporters < policy.minReporters || stable.reporters < policy.minReporters) {
    return wait(`fewer than ${people(policy.minReporters)} reporting on a side`);
  }
  const pooled = (canary.failures + stable.failures) / (canary.attempts + stable.attempts);
  const standardError = Math.sqrt(pooled * (1 - pooled) * (1 / canary.attempts + 1 / stable.attempts));
  // Both rates 0 or both 1: no difference to test.
  const z = standardError > 0 ? (canaryRate - stableRate) / standardError : 0;
  const rollBack = canaryRate - stableRate > policy.minDifference && z > policy.z;
  return {
    rollBack,
    reason: rollBack
      ? `${compared}: worse by more than ${percent(policy.minDifference)} with z = ${z.toFixed(2)} > ${policy.z} (one-sided two-proportion z-test)`
      : `${compared}: z = ${z.toFixed(2)}, not worse beyond the thresholds`,
    canaryRate,
    stableRate,
    z,
  };
}
