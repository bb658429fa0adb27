import type { EntityManager } from '@mikro-orm/core';

/** What decides whether a person gets a remote's canary version (the rollout module's cohort.ts applies it). */
export interface CanaryAudience {
  /** Share of people, 0-100. */
  readonly percent: number;
  /** Realm roles (a Keycloak group grants them to its members) whose holders all get the canary. */
  readonly roles: readonly string[];
}

/** A remote's running canary, as the registry serves it. */
export interface RunningCanary extends CanaryAudience {
  readonly remote: string;
  readonly version: string;
  readonly startedAt: Date;
}

/** A remote's canary that was rolled back (aborted by hand or by the automatic rollback), and why. */
export interface RolledBackCanary {
  readonly remote: string;
  readonly version: string;
  readonly reason: string;
}

/**
 * What the registry needs of canaries, which the rollout module owns (rollouts, cohorts) and provides as
 * {@link CANARIES}: the running ones, for the copy of the registry that `/api/remotes` is served from; who is in
 * a canary's audience; and the end of a canary whose version is activated. The registry knows no more of them,
 * so it imports nothing from the rollout module, which builds on it.
 */
export interface Canaries {
  running(em: EntityManager): Promise<RunningCanary[]>;
  /** The canaries rolled back, the latest of each remote: open pages must not load their versions. */
  rolledBack(em: EntityManager): Promise<RolledBackCanary[]>;
  includes(
    audience: CanaryAudience,
    remote: string,
    person: { readonly sub: string; readonly roles: readonly string[] },
  ): boolean;
  /**
   * Inside the activation's transaction: `version` of `remote` became the active version, so a running canary
   * of it has nothing left to test and ends as promoted (`reason` kept with it).
   */
  activated(
    em: EntityManager,
    remote: string,
    version: string,
    actor: string,
    now: Date,
    reason: string | null,
  ): Promise<void>;
}

/** The injection token of {@link Canaries}. */
export const CANARIES = Symbol('Canaries');
