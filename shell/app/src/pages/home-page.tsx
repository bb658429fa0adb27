import type { AtriumUser } from '@atrium/sdk';
import { Page } from '@atrium/sdk/ui';
import { Link } from 'wouter';
import { RemotesListFailure } from '../layout/remotes-list-failure';
import { StatusPanel } from '../layout/status-panel';
import type { ListedRemotes } from '../remote-loading/catalogue/listed-remotes';

export interface HomePageProps {
  readonly user: AtriumUser;
  readonly remotes: ListedRemotes;
}

export function HomePage({ user, remotes }: HomePageProps) {
  return (
    <Page title="Home" heading={`Welcome, ${user.name}`}>
      <section aria-labelledby="features-heading">
        <h2 id="features-heading">Your features</h2>
        {remotes.status === 'loading' && <StatusPanel kind="loading" title="Loading features…" />}
        {remotes.status === 'failed' && (
          <RemotesListFailure error={remotes.error} onRetry={remotes.refetch} />
        )}
        {remotes.status === 'ready' &&
          (remotes.data.length === 0 ? (
            <p>No features are available yet.</p>
          ) : (
            <ul className="feature-list">
              {remotes.data.map((remote) => (
                <li key={remote.name}>
                  <Link href={remote.path} className="feature-card">
                    {remote.title}
                  </Link>
                </li>
              ))}
            </ul>
          ))}
      </section>
    </Page>
  );
}
