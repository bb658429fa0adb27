import { Injectable } from '@nestjs/common';
import type { EntityManager } from '@mikro-orm/core';
import type { Canaries, CanaryAudience, RolledBackCanary, RunningCanary } from '../registry/index.js';
import { inCanary } from './cohort.js';
import { RemoteRollout } from './rollout.entity.js';

/**
 * The canaries as the registry serves them (its {@link Canaries}, provided as CANARIES): the running ones from
 * remote_rollout, their audience by cohort.ts, the last rolled-back one of each remote, and a running canary
 * ended as promoted when its version is activated.
 */
@Injectable()
export class ServedCanaries implements Canaries {
  async running(em: EntityManager): Promise<RunningCanary[]> {
    const rollouts = await em.find(RemoteRollout, { state: 'running' }, { disableIdentityMap: true });
    return rollouts.map((rollout) => ({
      remote: rollout.remote.name,
      version: rollout.version,
      percent: rollout.percent,
      roles: [...rollout.roles],
      startedAt: rollout.startedAt,
    }));
  }

  async rolledBack(em: EntityManager): Promise<RolledBackCanary[]> {
    // One row per remote: its latest canary, so this is the last rolled-back canary of each.
    const rollouts = await em.find(RemoteRollout, { state: 'aborted' }, { disableIdentityMap: true });
    return rollouts.map((rollout) => ({
      remote: rollout.remote.name,
      version: rollout.version,
      reason: rollout.reason ?? '',
    }));
  }

  includes(
    audience: CanaryAudience,
    remote: string,
    person: { readonly sub: string; readonly roles: readonly string[] },
  ): boolean {
    return inCanary(audience, remote, person);
  }

  async activated(
    em: EntityManager,
    remote: string,
    version: string,
    actor: string,
    now: Date,
    reason: string | null,
  ): Promise<void> {
    const canary = await em.findOne(RemoteRollout, { remote, state: 'running', version });
    if (!canary) return;
    em.assign(canary, { state: 'promoted', endedBy: actor, endedAt: now, updatedAt: now, reason });
  }
}
