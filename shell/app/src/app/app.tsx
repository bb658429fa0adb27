import { useAsyncResource } from '@atrium/sdk/ui';
import { useCallback, useEffect, useMemo, useSyncExternalStore } from 'react';
import { AuthProvider } from 'react-oidc-context';
import { IndexedDbDPoPStore, type User } from 'oidc-client-ts';
import { AuthGate } from '../auth/auth-gate';
import { isAccountAccessAnswer } from '../auth/account-access-callback';
import { keepAccountActionResult } from '../auth/account-action-callback';
import { DPoPKeyCache } from '../auth/dpop-key-cache';
import { discoveryProbe, IdentityProviderMonitor } from '../auth/identity-provider';
import { IdentityProviderMonitorProvider, IdentityProviderNotice } from '../auth/identity-provider-notice';
import { createUserManager, safeReturnTo } from '../auth/oidc';
import { ConfigError, loadRuntimeConfig } from '../config/runtime-config';
import { StatusPanel } from '../layout/status-panel';
import type { RemoteCatalogue } from '../remote-loading/catalogue/remote-catalogue';
import type { FeatureLoader } from '../remote-loading/loader/remote-loader';
import { SignedInShell } from './signed-in-shell';

/** How long the first render waits at most for the early list's request to leave. */
const EARLY_REQUEST_WAIT_MS = 50;

/**
 * The run-time config and the OIDC client for it. While the config loads, the page reads its DPoP key
 * (../auth/dpop-key-cache.ts) and starts checking the release it opens at, as the registry listed it last time
 * (`recall`); the list of features is asked for as soon as the config is read (`requestEarly`), and sent before
 * React renders the session's loading: that render would delay it.
 */
async function loadConfig(catalogue: RemoteCatalogue) {
  const dpopStore = new DPoPKeyCache(new IndexedDbDPoPStore());
  dpopStore.warm();
  catalogue.recall();
  const config = await loadRuntimeConfig();
  const userManager = createUserManager(config, { dpopStore });
  // Signing out (here or in another tab) forgets which features this browser saw.
  userManager.events.addUserUnloaded(() => catalogue.forget());
  const early = catalogue.requestEarly(userManager, config.apiBaseUrl, config.remotesUrl);
  // React's first render of the session holds the main thread for a while: let the list's request leave first
  // (its proof is signed in a few milliseconds once the key is read), then render.
  await Promise.race([early.sent, new Promise((resolve) => setTimeout(resolve, EARLY_REQUEST_WAIT_MS))]);
  return { config, userManager };
}

export interface AppProps {
  /** The page's catalogue of remotes: the list's whole life, from the remembered one to the adopted one. */
  readonly catalogue: RemoteCatalogue;
  /** Loads a remote's Feature: the page's remote loader's. */
  readonly loadFeature: FeatureLoader;
}

/** Loads the run-time config, then hands over to sign-in; nothing renders blank in between. */
export function App({ catalogue, loadFeature }: AppProps) {
  const config = useAsyncResource(useCallback(() => loadConfig(catalogue), [catalogue]));

  if (config.status === 'loading') return <StatusPanel kind="loading" title="Starting Atrium…" />;
  if (config.status === 'failed') {
    const error = config.error instanceof ConfigError ? config.error : new ConfigError(String(config.error));
    return (
      <StatusPanel
        kind="error"
        title="Atrium's configuration could not be loaded"
        detail={error.message}
        items={error.problems}
        action={{ label: 'Retry', onClick: config.refetch }}
      />
    );
  }
  return <Authenticated {...config.data} catalogue={catalogue} loadFeature={loadFeature} />;
}

function Authenticated({
  config,
  userManager,
  catalogue,
  loadFeature,
}: Awaited<ReturnType<typeof loadConfig>> & AppProps) {
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
