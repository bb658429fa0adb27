import { EntityManager } from '@mikro-orm/core';
import { Inject, Injectable } from '@nestjs/common';
import { AuditEvent, AuditService } from '../audit/index.js';
import { ADMIN_ROLE, type AuthenticatedUser } from '../auth/index.js';
import { DevOverrideRefusedError } from './dev-overrides.errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { Remote } from '../registry/index.js';
import {
  devOverrideOriginAllowed,
  overriddenRemoteProblem,
  type PlatformOrigins,
  platformOriginProblem,
} from './dev-override-rules.js';
import type { DevOverride, DevOverrideRecord } from './dev-overrides.schemas.js';

/** The audit actions that approve a dev override for a session and withdraw every approval of one. */
export const DEV_OVERRIDE_ACTIVATED = 'dev.override.activated';
export const DEV_OVERRIDE_RESET = 'dev.override.reset';

/**
 * How far back the approvals of a session are looked for: a developer's most recent overrides and resets, across
 * all their sessions. An approval further back than this is no longer honoured (the developer follows the link
 * again), which bounds the read.
 */
export const APPROVALS_LOOKED_AT = 200;

/**
 * Dev overrides: a developer's session loads a remote from a dev server instead of its active release. The API
 * approves one (after its own checks) for the caller's sign-in session (the token's `sid`) and records it in the
 * audit log; that entry is the approval. The shell applies, at every load, only the overrides the API still
 * approves for the session it is in ({@link approvals}), so an override written into a tab's storage by anything
 * but this route is ignored, and every override that applies is in the audit log.
 */
@Injectable()
export class DevOverridesService {
  constructor(
    private readonly em: EntityManager,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Approves `override` for the caller's session and records it (`dev.override.activated`).
   *
   * @throws {@link DevOverrideRefusedError} when any rule refuses it ({@link problemOf}).
   */
  async approve(user: AuthenticatedUser, override: DevOverride): Promise<DevOverrideRecord> {
    const remote = await this.em.findOne(Remote, { name: override.remote }, { disableIdentityMap: true });
    const problem =
      this.problemOf(override, remote) ??
      (user.sessionId ? undefined : 'the token names no sign-in session (sid) to approve it for');
    if (problem !== undefined) throw new DevOverrideRefusedError(problem, this.config.devOverrideOrigins);
    const recordedAt = new Date();
    await this.em.transactional((em) => {
      this.audit.record(
        em,
        {
          actor: user.actor,
          actorName: user.name,
          action: DEV_OVERRIDE_ACTIVATED,
          // As the shell's address names it: <remote>@<dev server>.
          target: `${override.remote}@${override.url}`,
          details: { remote: override.remote, url: override.url, session: user.sessionId },
        },
        recordedAt,
      );
      return Promise.resolve();
    });
    return { ...override, actor: user.actor, recordedAt: recordedAt.toISOString() };
  }

  /**
   * The overrides approved for the caller's session since its last reset, newest approval per remote, that
   * today's rules still allow (a remote since made administrators-only, an origin since removed, drop out).
   * Nothing for a token without a session.
   */
  async approvals(user: AuthenticatedUser): Promise<DevOverrideRecord[]> {
    if (!user.sessionId) return [];
    const events = await this.em.find(
      AuditEvent,
      { actor: user.actor, action: { $in: [DEV_OVERRIDE_ACTIVATED, DEV_OVERRIDE_RESET] } },
      { orderBy: { occurredAt: 'desc', id: 'desc' }, limit: APPROVALS_LOOKED_AT, disableIdentityMap: true },
    );
    const approved = new Map<string, DevOverrideRecord>();
    for (const event of events) {
      if (event.details['session'] !== user.sessionId) continue;
      if (event.action === DEV_OVERRIDE_RESET) break;
      const { remote, url } = event.details;
      if (typeof remote !== 'string' || typeof url !== 'string' || approved.has(remote)) continue;
      approved.set(remote, { remote, url, actor: event.actor, recordedAt: event.occurredAt.toISOString() });
    }
    if (approved.size === 0) return [];
    const remotes = await this.em.find(
      Remote,
      { name: { $in: [...approved.keys()] } },
      { disableIdentityMap: true },
    );
    return [...approved.values()].filter(
      (override) =>
        this.problemOf(
          override,
          remotes.find((remote) => remote.name === override.remote),
        ) === undefined,
    );
  }

  /** Withdraws every approval of the caller's session (`dev.override.reset`): the shell's one-click reset. */
  async reset(user: AuthenticatedUser): Promise<void> {
    if (!user.sessionId) return;
    await this.em.transactional((em) => {
      this.audit.record(em, {
        actor: user.actor,
        actorName: user.name,
        action: DEV_OVERRIDE_RESET,
        target: `session ${user.sessionId}`,
        details: { session: user.sessionId },
      });
      return Promise.resolve();
    });
  }

  /** The platform's own origins, from the API's configuration (dev-override-rules.ts). */
  private platformOrigins(): PlatformOrigins {
    const { config } = this;
    return {
      'the API': [config.apiPublicUrl],
      'the identity provider': [config.oidcIssuerUrl, config.oidcDiscoveryUrl, config.keycloakAdmin.adminUrl],
      'the shell': config.corsOrigins,
      'the release store': config.allowedRemoteOrigins,
    };
  }

  /** Why `override` must not run, by the rules of dev-override-rules.ts and the registry, or undefined. */
  private problemOf(
    override: Pick<DevOverride, 'remote' | 'url'>,
    remote: Pick<Remote, 'name' | 'requiredRoles'> | null | undefined,
  ): string | undefined {
    const origins = this.config.devOverrideOrigins;
    if (origins.length === 0) return 'dev overrides are off on this deployment';
    const platform = platformOriginProblem(override.url, this.platformOrigins());
    if (platform !== undefined) return platform;
    if (!devOverrideOriginAllowed(override.url, origins)) {
      const origin = URL.canParse(override.url) ? new URL(override.url).origin : override.url;
      return `${origin} is not an origin dev overrides may load from (allowed: ${origins.join(', ')})`;
    }
    if (!remote) return `no remote named ${override.remote} is registered`;
    return overriddenRemoteProblem(remote.name, remote.requiredRoles, ADMIN_ROLE);
  }
}
