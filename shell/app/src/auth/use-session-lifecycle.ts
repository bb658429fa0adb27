import { ErrorResponse, type UserManager } from 'oidc-client-ts';
import { useEffect } from 'react';
import { isUnreachable, type IdentityProviderMonitor } from './identity-provider';

/** How often an open tab asks Keycloak whether its session still exists. */
export const SESSION_CHECK_INTERVAL_MS = 60_000;
/** Coming back to the tab checks at once, but not more often than this. */
const MIN_CHECK_GAP_MS = 5_000;

/**
 * Keeps the signed-in tab's session true to Keycloak's:
 *
 * - renewal: Keycloak refusing the refresh token (`invalid_grant`: the session was ended or timed out) ends
 *   the session here at once, and the auth gate sends the person through sign-in back to this page. Keycloak
 *   not answering ends nothing: the monitor says so, and the renewal runs again once Keycloak answers, so the
 *   person keeps their page through an outage;
 * - a session ended elsewhere (another device, an administrator) ends here too: the tab asks Keycloak every
 *   {@link SESSION_CHECK_INTERVAL_MS} and whenever the person comes back to it (visibility, focus, network
 *   back). Other tabs of this browser hear of a sign-out at once through {@link SharedUserManager}.
 */
export function useSessionLifecycle(userManager: UserManager, monitor: IdentityProviderMonitor): void {
  useEffect(() => {
    let active = true;
    const endSession = () => {
      if (active) void userManager.removeUser();
    };

    const renew = async (): Promise<void> => {
      while (active) {
        try {
          await userManager.signinSilent();
          monitor.reportReachable();
          return;
        } catch (error) {
          if (!isUnreachable(error)) {
            endSession();
            return;
          }
          await monitor.reportUnreachable('renewal');
        }
      }
    };
    const onExpired = () => void renew();
    const onRenewError = (error: Error) => {
      if (error instanceof ErrorResponse && error.error === 'invalid_grant') {
        endSession();
      } else if (isUnreachable(error)) {
        void monitor.reportUnreachable('renewal').then(() => renew());
      }
    };
    userManager.events.addAccessTokenExpired(onExpired);
    userManager.events.addSilentRenewError(onRenewError);

    let lastCheck = 0;
    const check = async (force = false) => {
      const now = Date.now();
      if (!force && now - lastCheck < MIN_CHECK_GAP_MS) return;
      lastCheck = now;
      try {
        // Loaded the first time it runs (a minute in, or when the person comes back): the first screen
        // does without it, and the shell's initial JavaScript stays within its budget.
        const { checkSession } = await import('./session-check');
        if ((await checkSession(userManager, monitor)) === 'ended') endSession();
      } catch {
        // An unexpected answer (or the check's code not loading) proves nothing either way; the next check
        // asks again.
      }
    };
    const onReturn = () => {
      if (document.visibilityState === 'visible') void check();
    };
    const interval = setInterval(() => void check(true), SESSION_CHECK_INTERVAL_MS);
    document.addEventListener('visibilitychange', onReturn);
    window.addEventListener('focus', onReturn);
    window.addEventListener('online', onReturn);

    return () => {
      active = false;
      userManager.events.removeAccessTokenExpired(onExpired);
      userManager.events.removeSilentRenewError(onRenewError);
      clearInterval(interval);
      document.removeEventListener('visibilitychange', onReturn);
      window.removeEventListener('focus', onReturn);
      window.removeEventListener('online', onReturn);
    };
  }, [userManager, monitor]);
}
