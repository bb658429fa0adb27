import { useEffect, useMemo, useSyncExternalStore } from 'react';
import { AuthProvider } from 'react-oidc-context';
import type { User } from 'oidc-client-ts';
import { AuthGate } from '../auth/auth-gate';
import { isAccountAccessAnswer } from '../auth/account-access-callback';
import { keepAccountActionResult } from '../auth/account-action-callback';
import { discoveryProbe, IdentityProviderMonitor } from '../auth/identity-provider';
import { IdentityProviderMonitorProvider, IdentityProviderNotice } from '../auth/identity-provider-notice';
import { safeReturnTo } from '../auth/oidc';
import { StatusPanel } from '../layout/status-panel';
import type { RemoteCatalogue } from '../remote-loading/catalogue/remote-catalogue';
import type { FeatureLoader } from '../remote-loading/loader/remote-loader';
import { SignedInShell } from './signed-in-shell';
import type { Startup, StartupState } from './startup';

export interface AppProps {
  /** The page's start (./startup.ts): the run-time config and its OIDC client, as they load. */
  readonly startup: Startup;
  /** The page's catalogue of remotes: the list's whole life, from the remembered one to the adopted one. */
  readonly catalogue: RemoteCatalogue;
  /** Loads a remote's Feature: the page's remote loader's. */
  readonly loadFeature: FeatureLoader;
}

/** Shows the page's start, then hands over to sign-in; nothing renders blank in between. */
export function App({ startup, catalogue, loadFeature }: AppProps) {
  const state = useSyncExternalStore(startup.subscribe, startup.getSnapshot);
  if (state.status === 'loading') return <StatusPanel kind="loading" title="Starting Atrium…" />;
  if (state.status === 'failed') {
    return (
      <StatusPanel
        kind="error"
        title="Atrium's configuration could not be loaded"
        detail={state.error.message}
        items={state.error.problems}
        action={{ label: 'Retry', onClick: startup.retry }}
      />
    );
  }
  return (
    <Authenticated
      config={state.config}
      userManager={state.userManager}
      catalogue={catalogue}
      loadFeature={loadFeature}
    />
  );
}

function Authenticated({
  config,
  userManager,
  catalogue,
  loadFeature,
}: Omit<Extract<StartupState, { status: 'ready' }>, 'status'> & Omit<AppProps, 'startup'>) {
  const monitor = useMemo(
    () => new IdentityProviderMonitor({ probe: discoveryProbe(config.oidc.authority) }),
    [config],
  );
  useEffect(() => () => monitor.dispose(), [monitor]);
  const signedOutElsewhere = useSyncExternalStore(
    userManager.subscribe,
    () => userManager.signedOutElsewhere,
  );
  const onSigninCallback = (user: User | undefined) => {
    // Keycloak's kc_action_status after an account action, read before the address is cleaned up.
    keepAccountActionResult(user?.state, window.location.search);
    // Drop ?code=&state= from the address bar and history, and go where the person was heading.
    window.history.replaceState(null, '', safeReturnTo(user?.state, config.oidc.redirectPath));
  };
  return (
    <IdentityProviderMonitorProvider value={monitor}>
      {/* Keycloak's answer to the API's authorization request is the API's to redeem (auth/account-access.ts). */}
      <AuthProvider
        userManager={userManager}
        onSigninCallback={onSigninCallback}
        skipSigninCallback={isAccountAccessAnswer()}
      >
        <AuthGate authority={config.oidc.authority} signedOutElsewhere={signedOutElsewhere}>
          <IdentityProviderNotice />
          <SignedInShell
            config={config}
            userManager={userManager}
            catalogue={catalogue}
            loadFeature={loadFeature}
          />
        </AuthGate>
      </AuthProvider>
    </IdentityProviderMonitorProvider>
  );
}
