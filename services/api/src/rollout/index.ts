// The rollout module's public surface: other modules and the app import it from here, nothing else of
// rollout/ (.dependency-cruiser.cjs, api-module-public-file).
export { type CanaryEvidence, type CanaryHealth, CanaryJudge } from './canary-judge.js';
export { cohortBucket } from './cohort.js';
export type { Tally, Verdict } from './rollback-policy.js';
export * from './rollout.errors.js';
export { ROLLOUT_ENTITIES, RolloutModule } from './rollout.module.js';
export type { RolloutDoc } from './rollout.schemas.js';
