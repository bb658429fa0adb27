import { useApi, type AdminRemotesDocument } from '@atrium/sdk';
import { useCallback, useEffect, useState } from 'react';
import { describeApiError } from '@atrium/sdk/ui';
import { HealthChart } from './health-chart';
import { RolloutControls } from './rollout-controls';

type ListState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly document: AdminRemotesDocument }
  | { readonly status: 'failed'; readonly message: string };

/** Each remote's versions with their field health over time and its canary: the rollouts tab. */
export function RolloutsConsole() {
  const api = useApi();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<ListState>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    api.get<AdminRemotesDocument>('/api/admin/remotes', { signal: controller.signal }).then(
      (document) => setState({ status: 'ready', document }),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setState({
            status: 'failed',
            message: describeApiError(error, 'The registry could not be loaded'),
          });
        }
      },
    );
    return () => controller.abort();
  }, [api, attempt]);
  const reload = useCallback(() => setAttempt((value) => value + 1), []);

  if (state.status === 'loading') return <p className="atrium-admin__muted">Loading remotes…</p>;
  if (state.status === 'failed') {
    return (
      <p role="alert" className="atrium-admin__error">
        {state.message}
      </p>
    );
  }
  return (
    <div className="atrium-admin__rollouts">
      {state.document.remotes.map((remote) => (
        <article key={remote.name} className="atrium-admin__card" data-testid={`rollouts-${remote.name}`}>
          <h2>
            {remote.title} <span className="atrium-admin__muted">({remote.name})</span>
          </h2>
          <p className="atrium-admin__muted">Active version: {remote.activeVersion ?? 'none'}</p>
          <RolloutControls remote={remote.name} versions={remote.versions} onChanged={reload} />
          <HealthChart remote={remote.name} refresh={attempt} />
        </article>
      ))}
    </div>
  );
}
