import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { type AuditActor, AuditService, changedFields } from '../audit/index.js';
import type { AuthenticatedUser } from '../auth/index.js';
import { ValidationFailedError } from '../common/errors/domain-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { countRolloutStep } from '../metrics/index.js';
import {
  ActiveRemotes,
  assertMayDeploy,
  assertServable,
  CANARIES,
  type Canaries,
  lockRemote,
  makeActive,
  Remote,
  RemoteNotFoundError,
  RemoteVersion,
  requireDeployRole,
  SharedDependencyGate,
  VersionNotFoundError,
} from '../registry/index.js';
import {
  CanaryAudienceRefusedError,
  NoRolloutError,
  NoStableVersionError,
  RolloutInProgressError,
} from './rollout.errors.js';
import { RemoteRollout } from './rollout.entity.js';
import type { AbortRollout, ChangeRollout, RolloutDoc, StartRollout } from './rollout.schemas.js';

/** Who the audit log names when the API itself rolls a canary back. */
export const AUTOMATIC_ROLLBACK_ACTOR = 'atrium-api (automatic rollback)';

const AUTOMATIC_ROLLBACK: AuditActor = { actor: AUTOMATIC_ROLLBACK_ACTOR, name: null };

/**
 * Canaries: a published version served instead of the active one to a share of people and to holders of
 * named roles (cohort.ts decides who). Started, changed, promoted and aborted by an administrator or the
 * remote's owning deployer, exactly like activation; every step is one transaction with its audit event, the
 * remote's row locked first, through {@link ActiveRemotes.change} so every replica serves the change at once.
 */
@Injectable()
export class RolloutService {
  constructor(
    private readonly em: EntityManager,
    private readonly audit: AuditService,
    private readonly activeRemotes: ActiveRemotes,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(CANARIES) private readonly canaries: Canaries,
    private readonly gate: SharedDependencyGate,
  ) {}

  /** Starts a canary of a published version whose shared dependencies match what is live (SharedDependencyGate). */
  async start(user: AuthenticatedUser, name: string, input: StartRollout): Promise<RolloutDoc> {
    const { admin } = requireDeployRole(user);
    return this.gate.guard(user, 'canary', (check) =>
      this.activeRemotes.change(this.em, async (em) => {
        const remote = await this.ownedRemote(em, user, admin, name);
        assertMayTarget(admin, remote, input.roles ?? []);
        const target = await em.findOne(RemoteVersion, { remote: name, version: input.version });
        if (!target) throw new VersionNotFoundError(name, input.version);
        assertServable(target);
        const stable = await em.findOne(RemoteVersion, { remote: name, active: true });
        if (!stable) throw new NoStableVersionError(name);
        if (stable.version === input.version) {
          throw new ValidationFailedError([
            { field: 'version', message: 'is already the active version that everybody gets' },
          ]);
        }
        const existing = await em.findOne(RemoteRollout, { remote: name });
        if (existing?.state === 'running') throw new RolloutInProgressError(name, existing.version);
        await check(em, { remote: name, version: target.version, shared: target.shared ?? null });
        const now = new Date();
        const fields = {
          version: input.version,
          percent: input.percent ?? 0,
          roles: input.roles ?? [],
          state: 'running' as const,
          startedBy: user.actor,
          startedAt: now,
          updatedAt: now,
          endedBy: null,
          endedAt: null,
          reason: null,
        };
        const rollout = existing
          ? em.assign(existing, fields)
          : em.create(RemoteRollout, { remote, ...fields });
        this.audit.record(
          em,
          {
            actor: user.actor,
            actorName: user.name,
            action: 'remote.rollout.started',
            target: `${name}@${input.version}`,
            details: {
              remote: name,
              version: input.version,
              stableVersion: stable.version,
              percent: rollout.percent,
              roles: rollout.roles,
            },
          },
          now,
        );
        await em.flush();
        countRolloutStep('started');
        return toRolloutDoc(rollout, stable.version);
      }),
    );
  }

  /** Widens (or narrows) the running canary's share or roles; the audit event has each change's from and to. */
  async change(user: AuthenticatedUser, name: string, input: ChangeRollout): Promise<RolloutDoc> {
    const { admin } = requireDeployRole(user);
    return this.activeRemotes.change(this.em, async (em) => {
      const remote = await this.ownedRemote(em, user, admin, name);
      if (input.roles) assertMayTarget(admin, remote, input.roles);
      const rollout = await runningRollout(em, name);
      const before = { percent: rollout.percent, roles: [...rollout.roles] };
      const after = { ...before, ...input };
      const changes = changedFields(before, after);
      if (Object.keys(changes).length > 0) {
        const now = new Date();
        em.assign(rollout, { ...after, updatedAt: now });
        this.audit.record(
          em,
          {
            actor: user.actor,
            actorName: user.name,
            action: 'remote.rollout.changed',
            target: `${name}@${rollout.version}`,
            details: { remote: name, version: rollout.version, changes },
          },
          now,
        );
        await em.flush();
        countRolloutStep('changed');
      }
      return toRolloutDoc(rollout, await stableVersionOf(em, name));
    });
  }

  /** The canary becomes the active version for everybody (recorded as a promotion and an activation). */
  async promote(user: AuthenticatedUser, name: string): Promise<RolloutDoc> {
    const { admin } = requireDeployRole(user);
    return this.activeRemotes.change(this.em, async (em) => {
      const remote = await this.ownedRemote(em, user, admin, name);
      const rollout = await runningRollout(em, name);
      const target = await em.findOneOrFail(RemoteVersion, { remote: name, version: rollout.version });
      const now = new Date();
      const previous = await makeActive(
        em,
        this.audit,
        this.canaries,
        user,
        remote,
        target,
        now,
        'canary promotion',
      );
      this.audit.record(
        em,
        {
          actor: user.actor,
          actorName: user.name,
          action: 'remote.rollout.promoted',
          target: `${name}@${rollout.version}`,
          details: { remote: name, version: rollout.version, previousVersion: previous },
        },
        now,
      );
      await em.flush();
      countRolloutStep('promoted');
      return toRolloutDoc(rollout, rollout.version);
    });
  }

  /** Everybody gets the active version again; the canary's version stays published. */
  async abort(user: AuthenticatedUser, name: string, input: AbortRollout): Promise<RolloutDoc> {
    const { admin } = requireDeployRole(user);
    return this.activeRemotes.change(this.em, async (em) => {
      await this.ownedRemote(em, user, admin, name);
      const rollout = await runningRollout(em, name);
      this.end(em, rollout, user, 'remote.rollout.aborted', input.reason ?? null, {});
      await em.flush();
      countRolloutStep('aborted');
      return toRolloutDoc(rollout, await stableVersionOf(em, name));
    });
  }

  /**
   * The automatic rollback: aborts `version`'s canary of `name` if it is still the running one (another
   * replica, or a person, may have ended it first: then nothing happens and false is returned). `why` is the
   * sentence kept as the reason, `evidence` the numbers behind it, both in the audit event.
   */
  async rollBack(
    name: string,
    version: string,
    why: string,
    evidence: Record<string, unknown>,
  ): Promise<boolean> {
    return this.activeRemotes.change(this.em.fork(), async (em) => {
      await lockRemote(em, this.config.database, name);
      const rollout = await em.findOne(RemoteRollout, { remote: name, state: 'running', version });
      if (!rollout) return false;
      this.end(em, rollout, AUTOMATIC_ROLLBACK, 'remote.rollout.rolled_back', why, evidence);
      await em.flush();
      countRolloutStep('rolled_back');
      return true;
    });
  }

  /** The remote's latest canary, running or ended; null when it never had one. */
  async get(user: AuthenticatedUser, name: string): Promise<RolloutDoc | null> {
    const { admin } = requireDeployRole(user);
    const remote = await this.em.findOne(Remote, { name });
    if (!remote) throw new RemoteNotFoundError(name);
    assertMayDeploy(user, admin, remote, 'roll out');
    const rollout = await this.em.findOne(RemoteRollout, { remote: name });
    if (!rollout) return null;
    return toRolloutDoc(rollout, await stableVersionOf(this.em, name));
  }

  private end(
    em: EntityManager,
    rollout: RemoteRollout,
    by: AuditActor,
    action: 'remote.rollout.aborted' | 'remote.rollout.rolled_back',
    reason: string | null,
    evidence: Record<string, unknown>,
  ): void {
    const now = new Date();
    em.assign(rollout, { state: 'aborted', endedBy: by.actor, endedAt: now, updatedAt: now, reason });
    const name = rollout.remote.name;
    this.audit.record(
      em,
      {
        actor: by.actor,
        actorName: by.name,
        action,
        target: `${name}@${rollout.version}`,
        details: { remote: name, version: rollout.version, reason, ...evidence },
      },
      now,
    );
  }

  private async ownedRemote(
    em: EntityManager,
    user: AuthenticatedUser,
    admin: boolean,
    name: string,
  ): Promise<Remote> {
    const remote = await lockRemote(em, this.config.database, name);
    if (!remote) throw new RemoteNotFoundError(name);
    assertMayDeploy(user, admin, remote, 'roll out');
    return remote;
  }
}

async function runningRollout(em: EntityManager, name: string): Promise<RemoteRollout> {
  const rollout = await em.findOne(RemoteRollout, { remote: name, state: 'running' });
  if (!rollout) throw new NoRolloutError(name);
  return rollout;
}

async function stableVersionOf(em: EntityManager, name: string): Promise<string | null> {
  return (await em.findOne(RemoteVersion, { remote: name, active: true }))?.version ?? null;
}

export function toRolloutDoc(rollout: RemoteRollout, stableVersion: string | null): RolloutDoc {
  return {
    remote: rollout.remote.name,
    version: rollout.version,
    stableVersion,
    percent: rollout.percent,
    roles: [...rollout.roles],
    state: rollout.state,
    startedBy: rollout.startedBy,
    startedAt: rollout.startedAt.toISOString(),
    updatedAt: rollout.updatedAt.toISOString(),
    endedBy: rollout.endedBy ?? null,
    endedAt: rollout.endedAt?.toISOString() ?? null,
    reason: rollout.reason ?? null,
  };
}

/**
 * Who a canary may be aimed at: an administrator may name any role; a deployer only roles the remote already
 * requires (everyone who may see it holds them), so a feature team's pipeline cannot target administrators or
 * any other group its remote is not for. A share of people (`percent`) is anyone's to set.
 */
export function assertMayTarget(
  admin: boolean,
  remote: { readonly name: string; readonly requiredRoles: readonly string[] },
  roles: readonly string[],
): void {
  if (admin) return;
  const beyond = roles.filter((role) => !remote.requiredRoles.includes(role));
  if (beyond.length > 0) throw new CanaryAudienceRefusedError(remote.name, beyond, remote.requiredRoles);
}
