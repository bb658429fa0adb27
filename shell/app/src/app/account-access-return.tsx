import { useApi } from '@atrium/sdk';
import { useEffect, useRef } from 'react';
import { useLocation } from 'wouter';
import { StatusPanel } from '../layout/status-panel';

/**
 * The page Keycloak answers the API's authorization request on: hands the answer to the API and goes back to
 * where the person asked for access (auth/account-access.ts, loaded only here).
 */
export function AccountAccessReturn() {
  const api = useApi();
  const [, setLocation] = useLocation();
  // StrictMode runs effects twice; Keycloak's code is good for one redemption.
  const started = useRef(false);
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const search = window.location.search;
    void import('../auth/account-access')
      .then(({ completeAccountAccess }) => completeAccountAccess(api, search))
      .then((returnTo) => setLocation(returnTo, { replace: true }));
  }, [api, setLocation]);
  return <StatusPanel kind="loading" title="Returning to Atrium…" />;
}
