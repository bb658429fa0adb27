import type { AuthenticatedUser } from '../auth/access-token.js';
import { ADMIN_ROLE, PUBLISHER_ROLE } from '../auth/role-names.js';
import {
  CanaryAudienceRefusedError,
  InsufficientScopeError,
  NotRemoteOwnerError,
} from '../common/errors/domain-errors.js';

// The registry's roles, from the one module that names them (re-exported for the registry's own callers).
export { ADMIN_ROLE, PUBLISHER_ROLE };

/**
 * Who decides which version people get (activation, canaries): an administrator for any remote, a deployer
 * (remote-publisher) for the remotes it owns. Checked in two steps so a caller with neither role is refused
 * before the remote is looked up; returns whether the caller is an administrator.
 */
export function requireDeployRole(user: AuthenticatedUser): { admin: boolean } {
  const admin = user.roles.includes(ADMIN_ROLE);
  if (!admin && !user.roles.includes(PUBLISHER_ROLE)) throw new InsufficientScopeError([ADMIN_ROLE]);
  return { admin };
}

/** The second step of {@link requireDeployRole}: a deployer must own the remote. */
export function assertMayDeploy(
  user: AuthenticatedUser,
  admin: boolean,
  remote: { readonly name: string; readonly owner: string },
  act: 'activate' | 'roll out',
): void {
  if (!admin && user.clientId !== remote.owner) {
    throw new NotRemoteOwnerError(remote.name, remote.owner, user.clientId, act);
  }
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
