import type { AtriumUser } from '@atrium/sdk';
import { Redirect, Route, Switch } from 'wouter';
import { ACCOUNT_ACCESS_PATH } from '../auth/account-access-callback';
import { RemotesListFailure } from '../layout/remotes-list-failure';
import { StatusPanel } from '../layout/status-panel';
import { HomePage } from '../pages/home-page';
import { NotFoundPage } from '../pages/not-found-page';
import type { ListedRemotes } from '../remote-loading/catalogue/listed-remotes';
import type { FeatureLoader } from '../remote-loading/loader/remote-loader';
import { RemoteSlot } from '../remote-loading/remote-slot';
import { AccountAccessReturn } from './account-access-return';

export interface AppRoutesProps {
  readonly user: AtriumUser;
  /** The remotes the registry lists for this person, as they load. */
  readonly remotes: ListedRemotes;
  /** The OIDC callback path: once signed in, it leads home. */
  readonly redirectPath: string;
  readonly remoteTimeoutMs: number;
  /** Loads a remote's Feature: the page's remote loader's (tests give their own). */
  readonly loadFeature: FeatureLoader;
}

/**
 * What the shell shows at each path: home, a remote at its route, or "Page not found" once the list of remotes
 * says nothing lives there (until then, the list's loading or failure).
 */
export function AppRoutes({ user, remotes, redirectPath, remoteTimeoutMs, loadFeature }: AppRoutesProps) {
  const listed = remotes.data ?? [];
  return (
    <Switch>
      <Route path="/">
        <HomePage user={user} remotes={remotes} />
      </Route>
      <Route path={redirectPath}>
        <Redirect to="/" replace />
      </Route>
      <Route path={ACCOUNT_ACCESS_PATH}>
        <AccountAccessReturn />
      </Route>
      {listed.map((remote) => (
        <Route key={remote.name} path={remote.path} nest>
          <RemoteSlot key={remote.name} remote={remote} timeoutMs={remoteTimeoutMs} load={loadFeature} />
        </Route>
      ))}
      <Route>
        {remotes.status === 'loading' ? (
          <StatusPanel kind="loading" title="Loading features…" />
        ) : remotes.status === 'failed' ? (
          <RemotesListFailure error={remotes.error} onRetry={remotes.refetch} />
        ) : (
          <NotFoundPage />
        )}
      </Route>
    </Switch>
  );
}
