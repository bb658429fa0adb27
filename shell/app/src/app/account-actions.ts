import type { AccountAction, AccountActionResult, AccountActions, ApiClient } from '@atrium/sdk';
import type { UserManager } from 'oidc-client-ts';
import { useEffect, useMemo, useState } from 'react';
import { useAuth } from 'react-oidc-context';
import { hasAccountActionResult } from '../auth/account-action-callback';
import { currentLocation } from '../auth/oidc';

/**
 * What remotes get as `useAccountActions()`: start one of Keycloak's account actions (kc_action) and read its
 * outcome once the person is back, or let the API act on the account (auth/account-access.ts). The modules that
 * build the requests and read the outcome load only when an outcome waits or an action starts.
 */
export function useAccountActionsValue(api: ApiClient, userManager: UserManager): AccountActions {
  const auth = useAuth();
  const [lastResult, setLastResult] = useState<AccountActionResult | null>(null);
  useEffect(() => {
    if (!hasAccountActionResult()) return;
    void import('../auth/account-actions').then((actions) =>
      setLastResult(actions.takeAccountActionResult()),
    );
  }, []);
  return useMemo<AccountActions>(
    () => ({
      // Through react-oidc-context, like sign-out, so the auth gate shows the navigation instead of racing it.
      run: async (action: AccountAction) => {
        const { accountActionRequest } = await import('../auth/account-actions');
        await auth.signinRedirect(accountActionRequest(action, currentLocation()));
      },
      requestAccess: async () => {
        const { requestAccountAccess } = await import('../auth/account-access');
        await requestAccountAccess({
          api,
          authorizationEndpoint: await userManager.metadataService.getAuthorizationEndpoint(),
          returnTo: currentLocation(),
        });
      },
      lastResult,
      dismissResult: () => setLastResult(null),
    }),
    [auth, api, userManager, lastResult],
  );
}
