import {
  applyTheme,
  AtriumProvider,
  createApiClient,
  isThemePreference,
  type ApiClient,
  type AtriumContextValue,
  type MeDocument,
  type RemoteDescriptor,
  type ThemePreference,
} from '@atrium/sdk';
import type { UserManager } from 'oidc-client-ts';
import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useAuth } from 'react-oidc-context';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { createApiAuthorization } from '../auth/api-authorization';
import { useIdentityProviderMonitor } from '../auth/identity-provider-notice';
import { toAtriumUser } from '../auth/oidc';
import { useSessionLifecycle } from '../auth/use-session-lifecycle';
import type { RuntimeConfig } from '../config/runtime-config';
import { AppHeader } from '../layout/app-header';
import { StatusPanel } from '../layout/status-panel';
import { HomePage } from '../pages/home-page';
import { NotFoundPage } from '../pages/not-found-page';
import { registerFeatureRemotes } from '../remote-loading/federation';
import { RemoteSlot } from '../remote-loading/remote-slot';
import { getRemotes, RemotesListError } from '../remote-loading/remotes-list';

const THEME_CACHE_KEY = 'atrium.theme';

type RemotesState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly remotes: readonly RemoteDescriptor[] }
  | { readonly status: 'failed'; readonly error: RemotesListError };

export interface SignedInShellProps {
  readonly config: RuntimeConfig;
  readonly userManager: UserManager;
}

/** The shell once someone is signed in: context for remotes, header, navigation and routes. */
export function SignedInShell({ config, userManager }: SignedInShellProps) {
  const auth = useAuth();
  const identityProvider = useIdentityProviderMonitor();
  useSessionLifecycle(userManager, identityProvider);
  const oidcUser = auth.user;
  const [theme, setThemeState] = useState<ThemePreference>(readCachedTheme);
  const [location, setLocation] = useLocation();

  const setTheme = useCallback((next: ThemePreference) => {
    setThemeState(next);
    applyTheme(next);
    // Cached only to avoid a flash of the wrong theme on the next load; the API holds the real value.
    window.localStorage.setItem(THEME_CACHE_KEY, next);
  }, []);

  const signOut = useCallback(async () => {
    // Sign-out is a visit to Keycloak: when it does not answer, the shell says so and signs out once it does,
    // rather than leaving the person on the browser's error page.
    await identityProvider.whenReachable('sign-out');
    const idToken = (await userManager.getUser())?.id_token;
    // Through react-oidc-context, not the UserManager: it marks the sign-out as the active navigation, so
    // the auth gate does not race it with a new sign-in once the local user is removed.
    await auth.signoutRedirect({
      ...(idToken !== undefined ? { id_token_hint: idToken } : {}),
      post_logout_redirect_uri: `${window.location.origin}${config.oidc.postLogoutPath}`,
    });
  }, [userManager, auth, config.oidc.postLogoutPath, identityProvider]);

  const api = useMemo(
    () => createApiClient({ baseUrl: config.apiBaseUrl, ...createApiAuthorization(userManager) }),
    [config.apiBaseUrl, userManager],
  );

  useEffect(() => {
    performance.mark('atrium:shell-ready');
  }, []);

  useEffect(() => {
    let current = true;
    // The theme is cosmetic: if the API is down the feature pages report it, the shell keeps its theme.
    api.get<MeDocument>('/api/me').then(
      (me) => current && isThemePreference(me.preferences?.theme) && setTheme(me.preferences.theme),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api, setTheme]);

  const remotes = useRemotes(api, config.remotesUrl);
  const navigate = useCallback(
    (to: string, options?: { replace?: boolean }) => setLocation(to, { replace: options?.replace ?? false }),
    [setLocation],
  );

  const context = useMemo<AtriumContextValue | null>(
    () =>
      oidcUser ? { user: toAtriumUser(oidcUser), api, theme, setTheme, signOut, navigate, location } : null,
    [oidcUser, api, theme, setTheme, signOut, navigate, location],
  );
  if (context === null) return null;

  const remoteList = remotes.state.status === 'ready' ? remotes.state.remotes : [];
  return (
    <AtriumProvider value={context}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <AppHeader user={context.user} remotes={remoteList} onSignOut={signOut} />
      <MainContent>
        <Switch>
          <Route path="/">
            <HomePage user={context.user} remotes={remotes.state} onRetry={remotes.retry} />
          </Route>
          <Route path={config.oidc.redirectPath}>
            <Redirect to="/" replace />
          </Route>
          {remoteList.map((remote) => (
            <Route key={remote.name} path={remote.path} nest>
              <RemoteSlot key={remote.name} remote={remote} timeoutMs={config.remoteTimeoutMs} />
            </Route>
          ))}
          <Route>
            {remotes.state.status === 'loading' ? (
              <StatusPanel kind="loading" title="Loading features…" />
            ) : remotes.state.status === 'failed' ? (
              <RemotesListFailure error={remotes.state.error} onRetry={remotes.retry} />
            ) : (
              <NotFoundPage />
            )}
          </Route>
        </Switch>
      </MainContent>
    </AtriumProvider>
  );
}

export function RemotesListFailure({ error, onRetry }: { error: RemotesListError; onRetry: () => void }) {
  return (
    <StatusPanel
      kind="error"
      title="The list of features could not be loaded"
      detail={error.message}
      action={{ label: 'Retry', onClick: onRetry }}
    />
  );
}

/** `<main>` that takes focus after each navigation, so screen readers start at the new page. */
function MainContent({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const mainRef = useRef<HTMLElement>(null);
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    mainRef.current?.focus();
  }, [location]);
  return (
    <main id="main" ref={mainRef} tabIndex={-1} className="main">
      {children}
    </main>
  );
}

function useRemotes(api: ApiClient, remotesUrl: string) {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<RemotesState>({ status: 'loading' });
  useEffect(() => {
    let current = true;
    getRemotes(api, remotesUrl).then(
      (remotes) => {
        if (!current) return;
        registerFeatureRemotes(remotes);
        setState({ status: 'ready', remotes });
      },
      (error: unknown) =>
        current &&
        setState({
          status: 'failed',
          error: error instanceof RemotesListError ? error : new RemotesListError(String(error)),
        }),
    );
    return () => {
      current = false;
    };
  }, [api, remotesUrl, attempt]);
  const retry = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((value) => value + 1);
  }, []);
  return { state, retry };
}

function readCachedTheme(): ThemePreference {
  const cached = window.localStorage.getItem(THEME_CACHE_KEY);
  return isThemePreference(cached) ? cached : 'system';
}
