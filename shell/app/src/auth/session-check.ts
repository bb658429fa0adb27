import { ErrorResponse, type User, type UserManager } from 'oidc-client-ts';
import {
  IDENTITY_PROVIDER_TIMEOUT_SECONDS,
  isUnreachable,
  type IdentityProviderMonitor,
} from './identity-provider';

/** What a check found: the Keycloak session lives, is over, or could not be asked about. */
export type SessionCheckResult = 'active' | 'ended' | 'unreachable' | 'skipped';

// A token this close to expiry is renewed anyway; the renewal answers the question.
const MIN_TOKEN_SECONDS = 10;

/**
 * Asks Keycloak whether this tab's session still exists, for a session ended elsewhere (another device, an
 * administrator, Keycloak's idle timeout) that back-channel logout cannot tell the browser about.
 *
 * The cheap question is the userinfo endpoint with the current (DPoP-bound) access token: Keycloak answers
 * 401 once the user session is gone. A 401, or an answer the browser cannot read, is confirmed with a
 * renewal before the session counts as ended, so a proof Keycloak disliked never signs anyone out: only
 * Keycloak refusing the refresh token does.
 */
export async function checkSession(
  userManager: UserManager,
  monitor: IdentityProviderMonitor,
): Promise<SessionCheckResult> {
  const user = await userManager.getUser();
  if (user === null || user.expired || (user.expires_in ?? 0) < MIN_TOKEN_SECONDS) return 'skipped';
  let status: number | undefined;
  try {
    status = await askUserinfo(userManager, user);
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    // No answer in time: Keycloak is slow or down. A failed fetch may also be a browser refusing to show the
    // answer (CORS): the discovery document tells the two apart.
    const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
    if (timedOut || !(await monitor.check())) {
      void monitor.reportUnreachable('session-check');
      return 'unreachable';
    }
  }
  if (status !== undefined && status < 300) {
    monitor.reportReachable();
    return 'active';
  }
  if (status !== undefined && status !== 401 && status !== 403 && status < 500) return 'skipped';
  return confirmWithRenewal(userManager, monitor);
}

async function askUserinfo(userManager: UserManager, user: User): Promise<number> {
  const url = await userManager.metadataService.getUserInfoEndpoint();
  const headers: Record<string, string> = {};
  const proof = await userManager.dpopProof(url, user, 'GET');
  if (proof === undefined) {
    headers.Authorization = `Bearer ${user.access_token}`;
  } else {
    headers.Authorization = `DPoP ${user.access_token}`;
    headers.DPoP = proof;
  }
  const response = await fetch(url, {
    headers,
    cache: 'no-store',
    signal: AbortSignal.timeout(IDENTITY_PROVIDER_TIMEOUT_SECONDS * 1000),
  });
  return response.status;
}

async function confirmWithRenewal(
  userManager: UserManager,
  monitor: IdentityProviderMonitor,
): Promise<SessionCheckResult> {
  try {
    await userManager.signinSilent();
    monitor.reportReachable();
    return 'active';
  } catch (error) {
    if (error instanceof ErrorResponse) return 'ended';
    if (isUnreachable(error)) {
      void monitor.reportUnreachable('session-check');
      return 'unreachable';
    }
    throw error;
  }
}
