import type { AdminRemotesDocument } from '@atrium/sdk';
import { ResourceView, useApiResource } from '@atrium/sdk/ui';
import { HealthChart } from './health-chart';
import { RolloutControls } from './rollout-controls';

/** Each remote's versions with their field health over time and its canary: the rollouts tab. */
export function RolloutsConsole() {
  const registry = useApiResource<AdminRemotesDocument>('/api/admin/remotes');
  return (
    <ResourceView resource={registry} loading="Loading remotes…" failed="The registry could not be loaded">
      {(document) => (
        <div className="atrium-admin__rollouts">
          {document.remotes.map((remote) => (
            <article key={remote.name} className="atrium-admin__card" data-testid={`rollouts-${remote.name}`}>
              <h2>
                {remote.title} <span className="atrium-admin__muted">({remote.name})</span>
              </h2>
              <p className="atrium-admin__muted">Active version: {remote.activeVersion ?? 'none'}</p>
              <RolloutControls remote={remote.name} versions={remote.versions} onChanged={registry.refetch} />
              <HealthChart remote={remote.name} />
            </article>
          ))}
        </div>
      )}
    </ResourceView>
  );
}
