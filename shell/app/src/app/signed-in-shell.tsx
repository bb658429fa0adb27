import {
  AccountActionsProvider,
  AtriumProvider,
  type ApiClient,
  type AtriumContextValue,
  type RemoteDescriptor,
} from '@atrium/sdk';
import { useAsyncResource } from '@atrium/sdk/ui';
import type { UserManager } from 'oidc-client-ts';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { useLocation } from 'wouter';
import { wantsDevOverride } from '../dev-override/dev-override-keys';
import type { RuntimeConfig } from '../config/runtime-config';
import { AppHeader } from '../layout/app-header';
import { MainContent } from '../layout/main-content';
import { adoptRemotes } from '../remote-loading/federation';
import { rememberRemotes } from '../remote-loading/remembered-remotes';
import { getRemotes } from '../remote-loading/remotes-list';
import { useAccountActionsValue } from './account-actions';
import { AppRoutes } from './routes';
import { useSession } from './session';
import { useThemePreference } from './theme';

export interface SignedInShellProps {
  readonly config: RuntimeConfig;
  readonly userManager: UserManager;
  /** The registry's list, when it was asked for while the session loaded (./early-remotes.ts). */
  readonly earlyRemotes?: Promise<readonly RemoteDescriptor[] | undefined>;
}

/**
 * The shell once someone is signed in: puts together the session (./session), the theme (./theme), the
 * account actions (./account-actions) and the routes (./routes) into the context remotes get, with the
 * header around them.
 */
export function SignedInShell({ config, userManager, earlyRemotes }: SignedInShellProps) {
  const { user, api, signOut } = useSession({
    userManager,
    apiBaseUrl: config.apiBaseUrl,
    postLogoutPath: config.oidc.postLogoutPath,
    tracing: config.tracing,
  });
  const { theme, setTheme } = useThemePreference(api);
  const accountActions = useAccountActionsValue(api, userManager);
  // Applied once per page, before any remote loads (activating or resetting an override reloads the page).
  const [applyDevOverrides] = useState(() =>
    user && wantsDevOverride()
      ? (remotes: readonly RemoteDescriptor[]) =>
          import('../dev-override/dev-override-panel').then((module) =>
            module.startDevOverrides({ roles: user.roles, config, api }, remotes),
          )
      : undefined,
  );
  // Kept for the next page only while someone is signed in: an answer that lands after a sign-out (here or in
  // another tab, which forgets the kept list) must not write it back.
  const remember = useCallback(
    async (listed: readonly RemoteDescriptor[]) => {
      if ((await userManager.getUser()) !== null) rememberRemotes(listed);
    },
    [userManager],
  );
  const remotes = useRemotes(api, config.remotesUrl, remember, applyDevOverrides, earlyRemotes);
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
          />
        </MainContent>
      </AccountActionsProvider>
    </AtriumProvider>
  );
}

/**
 * The early lists already used: each serves the page's first signed-in shell once. A shell shown again later (a
 * sign-in after a sign-out, perhaps as someone else) or a Retry asks the registry afresh.
 */
const takenEarly = new WeakSet<Promise<readonly RemoteDescriptor[] | undefined>>();

/**
 * The registry's list of remotes for this person (the one asked for early, the first time), with this tab's dev
 * overrides applied if it has any, registered with the federation runtime as it arrives; the remote this page
 * opens at starts loading then, before its route renders.
 */
function useRemotes(
  api: ApiClient,
  remotesUrl: string,
  remember: (remotes: readonly RemoteDescriptor[]) => Promise<void>,
  applyDevOverrides?: (remotes: readonly RemoteDescriptor[]) => Promise<readonly RemoteDescriptor[]>,
  earlyRemotes?: Promise<readonly RemoteDescriptor[] | undefined>,
) {
  const load = useCallback(
    async (signal: AbortSignal): Promise<readonly RemoteDescriptor[]> => {
      const pending = earlyRemotes && !takenEarly.has(earlyRemotes) ? earlyRemotes : undefined;
      if (earlyRemotes) takenEarly.add(earlyRemotes);
      const listed = (await pending) ?? (await getRemotes(api, remotesUrl, signal));
      if (!signal.aborted) void remember(listed);
      const remotes = applyDevOverrides ? await applyDevOverrides(listed) : listed;
      if (!signal.aborted) adoptRemotes(remotes, window.location.pathname);
      return remotes;
    },
    [api, remotesUrl, remember, applyDevOverrides, earlyRemotes],
  );
  return useAsyncResource(load);
}
