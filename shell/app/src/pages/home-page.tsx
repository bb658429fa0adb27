import type { AtriumUser, RemoteDescriptor } from '@atrium/sdk';
import { Link } from 'wouter';
import { StatusPanel } from '../layout/status-panel';
import type { RemotesListError } from '../remote-loading/remotes-list';

export interface HomePageProps {
  readonly user: AtriumUser;
  readonly remotes:
    | { readonly status: 'loading' }
    | { readonly status: 'ready'; readonly remotes: readonly RemoteDescriptor[] }
    | { readonly status: 'failed'; readonly error: RemotesListError };
  readonly onRetry: () => void;
}

export function HomePage({ user, remotes, onRetry }: HomePageProps) {
  return (
    <>
      <h1>Welcome, {user.name}</h1>
      <section aria-labelledby="features-heading">
        <h2 id="features-heading">Your features</h2>
        {remotes.status === 'loading' && <StatusPanel kind="loading" title="Loading features…" />}
        {remotes.status === 'failed' && (
          <StatusPanel
            kind="error"
            title="The list of features could not be loaded"
            detail={remotes.error.message}
            action={{ label: 'Retry', onClick: onRetry }}
          />
        )}
        {remotes.status === 'ready' &&
          (remotes.remotes.length === 0 ? (
            <p>No features are available yet.</p>
          ) : (
            <ul className="feature-list">
              {remotes.remotes.map((remote) => (
                <li key={remote.name}>
                  <Link href={remote.path} className="feature-card">
                    {remote.title}
                  </Link>
                </li>
              ))}
            </ul>
          ))}
      </section>
    </>
  );
}
