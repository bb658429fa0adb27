import type { ApiClient, AtriumUser } from '@atrium/sdk';
import type { UserManager } from 'oidc-client-ts';
import { useCallback, useMemo } from 'react';
import { useAuth } from 'react-oidc-context';
import { createShellApiClient } from '../auth/api-authorization';
import { useIdentityProviderMonitor } from '../auth/identity-provider-notice';
import { toAtriumUser } from '../auth/oidc';
import { useSessionLifecycle } from '../auth/use-session-lifecycle';
import { apiTracer } from '../tracing/load-api-tracing';

export interface SessionOptions {
  readonly userManager: UserManager;
  readonly apiBaseUrl: string;
  /** Where Keycloak sends the person back after signing out (a path of the shell). */
  readonly postLogoutPath: string;
  /** Tracing of the API calls (the run-time config's `tracing`); absent: off, and its code never loads. */
  readonly tracing?: unknown;
}

export interface Session {
  /** The signed-in person, `null` once the session is gone (the auth gate then signs them in again). */
  readonly user: AtriumUser | null;
  /** The API client whose requests carry this session's DPoP-bound token. */
  readonly api: ApiClient;
  readonly signOut: () => Promise<void>;
}

/**
 * The signed-in session: who is signed in, the API client acting for them, signing out (once Keycloak answers),
 * and its lifecycle (../auth/use-session-lifecycle.ts: renewal through outages, ending a session that ended
 * elsewhere or can no longer be renewed).
 */
export function useSession({ userManager, apiBaseUrl, postLogoutPath, tracing }: SessionOptions): Session {
  const auth = useAuth();
  const identityProvider = useIdentityProviderMonitor();
  const oidcUser = auth.user;

  const api = useMemo(
    () => createShellApiClient(apiBaseUrl, userManager, apiTracer(tracing)),
    [apiBaseUrl, userManager, tracing],
  );

  const signOut = useCallback(async () => {
    // Sign-out is a visit to Keycloak: when it does not answer, the shell says so and signs out once it does,
    // rather than leaving the person on the browser's error page.
    await identityProvider.whenReachable('sign-out');
    const idToken = (await userManager.getUser())?.id_token;
    // Through react-oidc-context, not the UserManager: it marks the sign-out as the active navigation, so
    // the auth gate does not race it with a new sign-in once the local user is removed.
    await auth.signoutRedirect({
      ...(idToken !== undefined ? { id_token_hint: idToken } : {}),
      post_logout_redirect_uri: `${window.location.origin}${postLogoutPath}`,
    });
  }, [userManager, auth, postLogoutPath, identityProvider]);

  // Renewal that waits out a Keycloak outage, and ending a session that ended elsewhere or cannot be renewed.
  useSessionLifecycle(userManager, identityProvider);

  const user = useMemo(() => (oidcUser ? toAtriumUser(oidcUser) : null), [oidcUser]);
  return { user, api, signOut };
}
