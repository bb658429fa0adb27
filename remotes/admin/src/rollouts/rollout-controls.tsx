import { useApi, type RolloutDocument, type VersionDocument } from '@atrium/sdk';
import {
  Alert,
  Button,
  describeApiError,
  Field,
  FormRow,
  ResourceView,
  SelectField,
  useApiResource,
  useAsyncAction,
} from '@atrium/sdk/ui';
import { useState, type FormEvent } from 'react';

const rolesOf = (text: string) =>
  text
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);

/** Who gets a canary, in words. */
export function describeAudience(rollout: Pick<RolloutDocument, 'percent' | 'roles'>): string {
  const parts = [`${rollout.percent} % of people`];
  if (rollout.roles.length) parts.push(`holders of ${rollout.roles.join(', ')}`);
  return parts.join(' and ');
}

/**
 * A remote's canary: its state (and how the last one ended), and the steps an administrator takes: start one
 * with a published version, widen it, promote it or abort it. The API chooses who gets it and audits each step.
 */
export function RolloutControls({
  remote,
  versions,
  onChanged,
}: {
  readonly remote: string;
  readonly versions: readonly VersionDocument[];
  readonly onChanged: () => void;
}) {
  const api = useApi();
  const base = `/api/remotes/${encodeURIComponent(remote)}/rollout`;
  const current = useApiResource<{ rollout: RolloutDocument | null }>(base);
  const action = useAsyncAction();
  /** What the last step was and, once it succeeded, the state it left. */
  const [last, setLast] = useState<{ readonly what: string; readonly done?: string } | null>(null);
  const candidates = versions.filter((version) => !version.active && version.integrity);
  const [version, setVersion] = useState('');
  const [percent, setPercent] = useState('10');
  const [roles, setRoles] = useState('');
  const [reason, setReason] = useState('');

  const step = async (what: string, send: () => Promise<RolloutDocument>) => {
    setLast({ what });
    const outcome = await action.run(send);
    if (outcome.ok) {
      current.setData({ rollout: outcome.value });
      setLast({ what, done: describeState(outcome.value) });
      onChanged();
    } else {
      // Someone else may have changed the canary meanwhile: show what it is now.
      current.refetch();
    }
  };
  const audience = () => ({ percent: Number(percent), roles: rolesOf(roles) });
  const start = (event: FormEvent) => {
    event.preventDefault();
    void step('Canary started', () =>
      api.post<RolloutDocument>(base, { version: version || candidates[0]?.version, ...audience() }),
    );
  };
  const change = (event: FormEvent) => {
    event.preventDefault();
    void step('Canary changed', () => api.patch<RolloutDocument>(base, audience()));
  };

  return (
    <ResourceView resource={current} loading="Loading the canary…" failed="The canary could not be loaded">
      {({ rollout }) => renderControls(rollout)}
    </ResourceView>
  );

  function renderControls(rollout: RolloutDocument | null) {
    const running = rollout?.state === 'running';
    return (
      <section className="atrium-admin__rollout" aria-label={`Canary of ${remote}`}>
        <p data-testid={`rollout-state-${remote}`}>
          {rollout ? describeState(rollout) : 'No canary has run.'}
        </p>
        {/* Focus goes to the outcome: promoting or aborting removes the buttons that did it. */}
        {last?.done && action.status === 'done' && (
          <Alert tone="success" autoFocus>{`${last.what}: ${last.done}`}</Alert>
        )}
        {last && action.status === 'failed' && (
          <Alert>{describeApiError(action.error, `${last.what} failed`)}</Alert>
        )}
        <form onSubmit={running ? change : start}>
          <FormRow>
            {!running && (
              <SelectField
                label="Version"
                value={version || candidates[0]?.version || ''}
                onChange={(e) => setVersion(e.target.value)}
                options={candidates.map((candidate) => ({
                  value: candidate.version,
                  label: candidate.version,
                }))}
              />
            )}
            <Field
              label="Share of people (%)"
              type="number"
              min={0}
              max={100}
              step={1}
              value={percent}
              onChange={(e) => setPercent(e.target.value)}
            />
            <Field
              label="Roles (comma-separated)"
              value={roles}
              onChange={(e) => setRoles(e.target.value)}
              placeholder="beta-testers"
            />
            <Button type="submit" busy={action.busy} disabled={!running && candidates.length === 0}>
              {running ? 'Change audience' : 'Start canary'}
            </Button>
          </FormRow>
        </form>
        {running && (
          <FormRow>
            <Button
              busy={action.busy}
              onClick={() => void step('Canary promoted', () => api.post<RolloutDocument>(`${base}/promote`))}
            >
              Promote {rollout.version}
            </Button>
            <Field label="Reason" value={reason} onChange={(e) => setReason(e.target.value)} />
            <Button
              variant="secondary"
              busy={action.busy}
              onClick={() =>
                void step('Canary aborted', () =>
                  api.post<RolloutDocument>(`${base}/abort`, reason.trim() ? { reason: reason.trim() } : {}),
                )
              }
            >
              Abort
            </Button>
          </FormRow>
        )}
      </section>
    );
  }
}

function describeState(rollout: RolloutDocument): string {
  const stable = rollout.stableVersion ?? 'none';
  if (rollout.state === 'running') {
    return `Canary ${rollout.version} runs for ${describeAudience(rollout)}; everybody else gets ${stable}.`;
  }
  if (rollout.state === 'promoted')
    return `Canary ${rollout.version} was promoted; everybody gets ${stable}.`;
  return (
    `Canary ${rollout.version} was aborted by ${rollout.endedBy ?? 'someone'}` +
    `${rollout.reason ? `: ${rollout.reason}` : ''}. Everybody gets ${stable}.`
  );
}
