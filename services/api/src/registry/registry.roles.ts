import { ADMIN_ROLE, type AuthenticatedUser, InsufficientScopeError, PUBLISHER_ROLE } from '../auth/index.js';
import { NotRemoteOwnerError } from './registry.errors.js';

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

/** The second step of {@link requireDeployRole}: a deployer must own the remote (to list its versions too). */
export function assertMayDeploy(
  user: AuthenticatedUser,
  admin: boolean,
  remote: { readonly name: string; readonly owner: string },
  act: 'activate' | 'roll out' | 'list',
): void {
  if (!admin && user.clientId !== remote.owner) {
    throw new NotRemoteOwnerError(remote.name, remote.owner, user.clientId, act);
  }
}
