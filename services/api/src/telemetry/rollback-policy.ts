/** Loads of one version in a window: how many were tried, how many failed (to load, or to render). */
export interface Tally {
  readonly attempts: number;
  readonly failures: number;
}

/** The configured thresholds (ROLLBACK_MIN_SAMPLES, ROLLBACK_MIN_DIFFERENCE, ROLLBACK_Z). */
export interface RollbackPolicy {
  readonly minSamples: number;
  readonly minDifference: number;
  readonly z: number;
}

export interface Verdict {
  readonly rollBack: boolean;
  /** One sentence: what was compared and why it does or does not roll back. */
  readonly reason: string;
  readonly canaryRate: number;
  readonly stableRate: number;
  /** The one-sided two-proportion z statistic, or null when it cannot be computed (too few samples). */
  readonly z: number | null;
}

const percent = (rate: number) => `${(rate * 100).toFixed(1)} %`;

/**
 * Whether a canary fails more than the stable version, beyond chance: a one-sided two-proportion z-test with
 * pooled variance, H0 "the canary fails no more often than stable". It rolls back when
 *   - both sides have at least `minSamples` attempts (small samples prove nothing either way),
 *   - the canary's failure rate exceeds stable's by more than `minDifference` (a practically relevant gap),
 *   - z = (p_canary - p_stable) / sqrt(p (1 - p) (1/n_canary + 1/n_stable)) > `z`, p the pooled rate
 *     (2.33: about one false alarm in a hundred checks when both are equally good).
 */
export function judgeCanary(canary: Tally, stable: Tally, policy: RollbackPolicy): Verdict {
  const canaryRate = canary.attempts ? canary.failures / canary.attempts : 0;
  const stableRate = stable.attempts ? stable.failures / stable.attempts : 0;
  const compared = `canary ${canary.failures}/${canary.attempts} failed (${percent(canaryRate)}), stable ${stable.failures}/${stable.attempts} (${percent(stableRate)})`;
  if (canary.attempts < policy.minSamples || stable.attempts < policy.minSamples) {
    return {
      rollBack: false,
      reason: `${compared}: fewer than ${policy.minSamples} loads on a side`,
      canaryRate,
      stableRate,
      z: null,
    };
  }
  const pooled = (canary.failures + stable.failures) / (canary.attempts + stable.attempts);
  const standardError = Math.sqrt(pooled * (1 - pooled) * (1 / canary.attempts + 1 / stable.attempts));
  const z = standardError === 0 ? 0 : (canaryRate - stableRate) / standardError;
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
