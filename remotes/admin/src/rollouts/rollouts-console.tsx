import type { AdminRemotesDocument } from '@atrium/sdk';
import { Card, ResourceView, useApiResource } from '@atrium/sdk/ui';
import { RemoteHeading } from '../remote-heading';
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
            <Card
              key={remote.name}
              heading={<RemoteHeading remote={remote} />}
              data-testid={`rollouts-${remote.name}`}
            >
              <p className="atrium-admin__muted">Active version: {remote.activeVersion ?? 'none'}</p>
              <RolloutControls remote={remote.name} versions={remote.versions} onChanged={registry.refetch} />
              <HealthChart remote={remote.name} />
            </Card>
          ))}
        </div>
      )}
    </ResourceView>
  );
}
