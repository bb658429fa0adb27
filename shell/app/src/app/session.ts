import { createApiClient, type ApiClient, type AtriumUser } from '@atrium/sdk';
import type { UserManager } from 'oidc-client-ts';
import { useCallback, useEffect, useMemo } from 'react';
import { useAuth } from 'react-oidc-context';
import { createApiAuthorization } from '../auth/api-authorization';
import { toAtriumUser } from '../auth/oidc';

export interface SessionOptions {
  readonly userManager: UserManager;
  readonly apiBaseUrl: string;
  /** Where Keycloak sends the person back after signing out (a path of the shell). */
  readonly postLogoutPath: string;
}

export interface Session {
  /** The signed-in person, `null` once the session is gone (the auth gate then signs them in again). */
  readonly user: AtriumUser | null;
  /** The API client whose requests carry this session's DPoP-bound token. */
  readonly api: ApiClient;
  readonly signOut: () => Promise<void>;
}

/**
 * The signed-in session: who is signed in, the API client acting for them, signing out, and ending the session
 * when it can no longer be renewed.
 */
export function useSession({ userManager, apiBaseUrl, postLogoutPath }: SessionOptions): Session {
  const auth = useAuth();
  const oidcUser = auth.user;

  const api = useMemo(
    () => createApiClient({ baseUrl: apiBaseUrl, ...createApiAuthorization(userManager) }),
    [apiBaseUrl, userManager],
  );

  const signOut = useCallback(async () => {
    const idToken = (await userManager.getUser())?.id_token;
    // Through react-oidc-context, not the UserManager: it marks the sign-out as the active navigation, so
    // the auth gate does not race it with a new sign-in once the local user is removed.
    await auth.signoutRedirect({
      ...(idToken !== undefined ? { id_token_hint: idToken } : {}),
      post_logout_redirect_uri: `${window.location.origin}${postLogoutPath}`,
    });
  }, [userManager, auth, postLogoutPath]);

  // A session that cannot be renewed is over: rather than leave a page whose next action fails, unload the
  // user so the auth gate sends the person to Keycloak and back to this page. Keycloak refusing the refresh
  // token (invalid_grant: the session was ended or timed out) ends it at once; any other renewal failure
  // (say, Keycloak briefly unreachable) ends it only when the access token actually expires and one last
  // renewal fails too (a tab whose timers the browser slowed down in the background gets that chance, and
  // finds the token another tab renewed meanwhile).
  useEffect(() => {
    const endSession = () => void userManager.removeUser();
    const onExpired = () => void userManager.signinSilent().catch(endSession);
    const onRenewError = (error: Error) => {
      if ((error as Error & { error?: string }).error === 'invalid_grant') endSession();
    };
    userManager.events.addAccessTokenExpired(onExpired);
    userManager.events.addSilentRenewError(onRenewError);
    return () => {
      userManager.events.removeAccessTokenExpired(onExpired);
      userManager.events.removeSilentRenewError(onRenewError);
    };
  }, [userManager]);

  const user = useMemo(() => (oidcUser ? toAtriumUser(oidcUser) : null), [oidcUser]);
  return { user, api, signOut };
}
