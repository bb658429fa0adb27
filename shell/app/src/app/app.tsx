import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';
import { AuthProvider } from 'react-oidc-context';
import type { User } from 'oidc-client-ts';
import { AuthGate } from '../auth/auth-gate';
import { discoveryProbe, IdentityProviderMonitor } from '../auth/identity-provider';
import { IdentityProviderMonitorProvider, IdentityProviderNotice } from '../auth/identity-provider-notice';
import { createUserManager, safeReturnTo } from '../auth/oidc';
import { ConfigError, loadRuntimeConfig, type RuntimeConfig } from '../config/runtime-config';
import { StatusPanel } from '../layout/status-panel';
import { SignedInShell } from './signed-in-shell';

type ConfigState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly config: RuntimeConfig }
  | { readonly status: 'failed'; readonly error: ConfigError };

/** Loads the run-time config, then hands over to sign-in; nothing renders blank in between. */
export function App() {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<ConfigState>({ status: 'loading' });

  useEffect(() => {
    let current = true;
    loadRuntimeConfig().then(
      (config) => current && setState({ status: 'ready', config }),
      (error: unknown) =>
        current &&
        setState({
          status: 'failed',
          error: error instanceof ConfigError ? error : new ConfigError(String(error)),
        }),
    );
    return () => {
      current = false;
    };
  }, [attempt]);

  if (state.status === 'loading') return <StatusPanel kind="loading" title="Starting Atrium…" />;
  if (state.status === 'failed') {
    return (
      <StatusPanel
        kind="error"
        title="Atrium's configuration could not be loaded"
        detail={state.error.message}
        items={state.error.problems}
        action={{
          label: 'Retry',
          onClick: () => {
            setState({ status: 'loading' });
            setAttempt((value) => value + 1);
          },
        }}
      />
    );
  }
  return <Authenticated config={state.config} />;
}

function Authenticated({ config }: { config: RuntimeConfig }) {
  const userManager = useMemo(() => createUserManager(config), [config]);
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
    // Drop ?code=&state= from the address bar and history, and go where the person was heading.
    window.history.replaceState(null, '', safeReturnTo(user?.state, config.oidc.redirectPath));
  };
  return (
    <IdentityProviderMonitorProvider value={monitor}>
      <AuthProvider userManager={userManager} onSigninCallback={onSigninCallback}>
        <AuthGate authority={config.oidc.authority} signedOutElsewhere={signedOutElsewhere}>
          <IdentityProviderNotice />
          <SignedInShell config={config} userManager={userManager} />
        </AuthGate>
      </AuthProvider>
    </IdentityProviderMonitorProvider>
  );
}
