import {
  AccountActionsProvider,
  AtriumProvider,
  type AtriumContextValue,
  type RemoteDescriptor,
} from '@atrium/sdk';
import type { UserManager } from 'oidc-client-ts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import { wantsDevOverride } from '../dev-override/dev-override-keys';
import type { RuntimeConfig } from '../config/runtime-config';
import { AppHeader } from '../layout/app-header';
import { MainContent } from '../layout/main-content';
import { useListedRemotes } from '../remote-loading/catalogue/listed-remotes';
import type { CatalogueSession, RemoteCatalogue } from '../remote-loading/catalogue/remote-catalogue';
import type { FeatureLoader } from '../remote-loading/loader/remote-loader';
import { useAccountActionsValue } from './account-actions';
import { AppRoutes } from './routes';
import { useSession } from './session';
import { useThemePreference } from './theme';

export interface SignedInShellProps {
  readonly config: RuntimeConfig;
  readonly userManager: UserManager;
  /** The page's catalogue of remotes: this session's list is asked for through it, and read from it. */
  readonly catalogue: RemoteCatalogue;
  /** Loads a remote's Feature: the page's remote loader's. */
  readonly loadFeature: FeatureLoader;
}

/**
 * The shell once someone is signed in: puts together the session (./session), the theme (./theme), the
 * account actions (./account-actions), the registry's list for this person (opened in the page's catalogue for
 * as long as the shell is shown, with this tab's dev overrides, if any) and the routes (./routes) into the context
 * remotes get, with the header around them.
 */
export function SignedInShell({ config, userManager, catalogue, loadFeature }: SignedInShellProps) {
  const { user, api, signOut } = useSession({
    userManager,
    apiBaseUrl: config.apiBaseUrl,
    postLogoutPath: config.oidc.postLogoutPath,
    tracing: config.tracing,
  });
  const { theme, setTheme } = useThemePreference(api);
  const accountActions = useAccountActionsValue(api, userManager);
  // Applied once per page, before any remote loads (activating or resetting an override reloads the page).
  const [applyDevOverrides] = useState<CatalogueSession['applyDevOverrides']>(() =>
    user && wantsDevOverride()
      ? (remotes: readonly RemoteDescriptor[]) =>
          import('../dev-override/dev-override-panel').then((module) =>
            module.startDevOverrides({ roles: user.roles, config, api }, remotes),
          )
      : undefined,
  );
  const session = useMemo<CatalogueSession>(
    () => ({
      api,
      remotesUrl: config.remotesUrl,
      isSignedIn: async () => (await userManager.getUser()) !== null,
      applyDevOverrides,
    }),
    [api, config.remotesUrl, userManager, applyDevOverrides],
  );
  useEffect(() => catalogue.open(session), [catalogue, session]);
  const remotes = useListedRemotes(catalogue);
  const [location, setLocation] = useLocation();
  const navigate = useCallback(
    (to: string, options?: { replace?: boolean }) => setLocation(to, { replace: options?.replace ?? false }),
    [setLocation],
  );

  useEffect(() => {
    performance.mark('atrium:shell-ready');
  }, []);

  const context = useMemo<AtriumContextValue | null>(
    () => (user ? { user, api, theme, setTheme, signOut, navigate, location } : null),
    [user, api, theme, setTheme, signOut, navigate, location],
  );
  if (context === null) return null;

  return (
    <AtriumProvider value={context}>
      <AccountActionsProvider value={accountActions}>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <AppHeader user={context.user} remotes={remotes.data ?? []} onSignOut={signOut} />
        <MainContent>
          <AppRoutes
            user={context.user}
            remotes={remotes}
            redirectPath={config.oidc.redirectPath}
            remoteTimeoutMs={config.remoteTimeoutMs}
            loadFeature={loadFeature}
          />
        </MainContent>
      </AccountActionsProvider>
    </AtriumProvider>
  );
}
