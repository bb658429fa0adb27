import { DomainError } from '../common/errors/domain-errors.js';

// The refusals of canary steps (their codes and statuses: common/errors/error-catalogue.ts).

/** A remote runs at most one canary at a time; it must be promoted or aborted before the next starts. */
export class RolloutInProgressError extends DomainError {
  readonly code = 'rollout_in_progress';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(name: string, version: string) {
    super(
      `Remote "${name}" already runs version ${version} as a canary: promote or abort it ` +
        '(POST /api/remotes/{name}/rollout/promote or /abort) before starting another.',
    );
    this.extensions = { canaryVersion: version };
  }
}

/** Widening, promoting or aborting needs a running canary. */
export class NoRolloutError extends DomainError {
  readonly code = 'no_rollout';
  constructor(name: string) {
    super(`Remote "${name}" runs no canary: start one with POST /api/remotes/${name}/rollout.`);
  }
}

/** A canary is served instead of the active version, so a remote without one cannot run a canary. */
export class NoStableVersionError extends DomainError {
  readonly code = 'no_stable_version';
  constructor(name: string) {
    super(
      `Remote "${name}" has no active version to fall back to: activate its first version ` +
        '(PUT /api/remotes/{name}/active) instead of starting a canary.',
    );
  }
}

/**
 * A deployer aimed a canary at realm roles the remote does not already require. The roles a canary names get
 * its code whatever share it runs at, so a feature team could otherwise put code of theirs in front of people
 * the remote is not for (administrators, whose session can change the registry); an administrator may.
 */
export class CanaryAudienceRefusedError extends DomainError {
  readonly code = 'canary_audience_refused';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(remote: string, roles: readonly string[], required: readonly string[]) {
    const named = roles.length === 1 ? `the role ${roles[0]}` : `the roles ${roles.join(', ')}`;
    super(
      `Only an administrator can aim a canary of "${remote}" at ${named}, which the remote does not require. ` +
        (required.length
          ? `Aim it at a share of people, or at roles the remote requires (${required.join(', ')}).`
          : 'Aim it at a share of people instead, or ask an administrator.'),
    );
    this.extensions = { roles: [...roles], requiredRoles: [...required] };
  }
}
