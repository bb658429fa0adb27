import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { RemoteVersion } from '../registry/index.js';
import { judgeCanary, type Tally, type Verdict } from './rollback-policy.js';
import { RemoteRollout } from './rollout.entity.js';
import { RolloutService } from './rollout.service.js';

const MINUTE_MS = 60_000;

/**
 * What the judge reads of a canary's field health: the one interface to it, which field telemetry implements
 * (it ingests the reports and tallies them per person and window) and hands to {@link CanaryJudge}.
 */
export interface CanaryHealth {
  /**
   * The loads of `versions` (the canary's and the stable one) reported since the canary started at
   * `canaryStartedAt`, each person's share capped per window as the rollback counts them, by version.
   */
  tallies(
    em: EntityManager,
    remote: string,
    versions: readonly [canary: string, stable: string],
    canaryStartedAt: Date,
  ): Promise<ReadonlyMap<string, Tally>>;
  /** The canary of `remote` ended: who reported about it is no longer needed. */
  forget(remote: string): Promise<void>;
}

/** A running canary, the numbers its verdict rests on, and the verdict. */
export interface CanaryEvidence {
  readonly version: string;
  readonly stableVersion: string;
  /** The start of the first window counted (the canary started in it), ISO 8601. */
  readonly since: string;
  readonly canary: Tally;
  readonly stable: Tally;
  /** What each side needs before a rollback (ROLLBACK_MIN_SAMPLES, ROLLBACK_MIN_REPORTERS). */
  readonly needs: { readonly loads: number; readonly people: number };
  readonly verdict: Verdict;
}

/**
 * The automatic rollback: judges a running canary against its stable version on what every replica has
 * written of the field's health (rollback-policy.ts), and rolls it back through {@link RolloutService.rollBack}
 * when it fails more beyond chance. Field telemetry asks after each write, for the canaries it got reports about.
 */
@Injectable()
export class CanaryJudge {
  private readonly logger = new Logger(CanaryJudge.name);

  constructor(
    private readonly em: EntityManager,
    private readonly rollouts: RolloutService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Judges the running canaries of `remotes`, one after the other, and rolls back those that fail. */
  async judge(remotes: readonly string[], health: CanaryHealth): Promise<void> {
    for (const name of remotes) await this.judgeOne(name, health);
  }

  private async judgeOne(name: string, health: CanaryHealth): Promise<void> {
    const evidence = await this.evidence(this.em.fork(), name, health);
    if (!evidence) {
      // Ended meanwhile.
      await health.forget(name);
      return;
    }
    const { verdict } = evidence;
    if (!verdict.rollBack) return;
    const rolledBack = await this.rollouts.rollBack(name, evidence.version, verdict.reason, {
      stableVersion: evidence.stableVersion,
      canary: evidence.canary,
      stable: evidence.stable,
      z: verdict.z,
      policy: this.config.rollback,
      since: evidence.since,
    });
    if (!rolledBack) return;
    this.logger.warn(`rolled back ${name}@${evidence.version}: ${verdict.reason}`);
    await health.forget(name);
  }

  /**
   * The running canary of `remote` and the numbers its verdict rests on, or null when none runs: per side, the
   * loads since the canary started with each person's share capped per window (at their own failure rate), and
   * how many distinct people reported them.
   */
  async evidence(em: EntityManager, remote: string, health: CanaryHealth): Promise<CanaryEvidence | null> {
    const canary = await em.findOne(RemoteRollout, { state: 'running', remote });
    const stable = canary && (await em.findOne(RemoteVersion, { remote, active: true }));
    if (!canary || !stable) return null;
    const startMinute = Math.floor(canary.startedAt.getTime() / MINUTE_MS);
    const tallies = await health.tallies(em, remote, [canary.version, stable.version], canary.startedAt);
    const none: Tally = { attempts: 0, failures: 0, reporters: 0 };
    const canaryTally = tallies.get(canary.version) ?? none;
    const stableTally = tallies.get(stable.version) ?? none;
    return {
      version: canary.version,
      stableVersion: stable.version,
      since: new Date(startMinute * MINUTE_MS).toISOString(),
      canary: canaryTally,
      stable: stableTally,
      needs: { loads: this.config.rollback.minSamples, people: this.config.rollback.minReporters },
      verdict: judgeCanary(canaryTally, stableTally, this.config.rollback),
    };
  }

  /** The remotes whose canary runs now. */
  async running(em: EntityManager): Promise<string[]> {
    return (await em.find(RemoteRollout, { state: 'running' })).map((rollout) => rollout.remote.name);
  }
}
