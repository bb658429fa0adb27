import type { AccountAction, AccountActionResult, AccountActions } from '@atrium/sdk';
import { useEffect, useMemo, useState } from 'react';
import { useAuth } from 'react-oidc-context';
import { hasAccountActionResult } from '../auth/account-action-callback';
import { currentLocation } from '../auth/oidc';

/**
 * What remotes get as `useAccountActions()`: start one of Keycloak's account actions (kc_action) and read its
 * outcome once the person is back. The module that builds the request and reads the outcome loads only when
 * an outcome waits or an action starts, not on every visit.
 */
export function useAccountActionsValue(): AccountActions {
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
      lastResult,
      dismissResult: () => setLastResult(null),
    }),
    [auth, lastResult],
  );
}
