import { useApi, type RolloutDocument, type VersionDocument } from '@atrium/sdk';
import { useEffect, useState, type FormEvent } from 'react';
import { describeApiError } from '@atrium/sdk/ui';

type RolloutState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly rollout: RolloutDocument | null }
  | { readonly status: 'failed'; readonly message: string };

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
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<RolloutState>({ status: 'loading' });
  const [outcome, setOutcome] = useState<{ readonly ok: boolean; readonly message: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const candidates = versions.filter((version) => !version.active && version.integrity);
  const [version, setVersion] = useState('');
  const [percent, setPercent] = useState('10');
  const [roles, setRoles] = useState('');
  const [reason, setReason] = useState('');
  const base = `/api/remotes/${encodeURIComponent(remote)}/rollout`;

  useEffect(() => {
    const controller = new AbortController();
    api.get<{ rollout: RolloutDocument | null }>(base, { signal: controller.signal }).then(
      ({ rollout }) => setState({ status: 'ready', rollout }),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setState({ status: 'failed', message: describeApiError(error, 'The canary could not be loaded') });
        }
      },
    );
    return () => controller.abort();
  }, [api, base, attempt]);

  const step = async (what: string, send: () => Promise<RolloutDocument>) => {
    setBusy(true);
    try {
      const rollout = await send();
      setState({ status: 'ready', rollout });
      setOutcome({ ok: true, message: `${what}: ${describeState(rollout)}` });
      onChanged();
    } catch (error) {
      setOutcome({ ok: false, message: describeApiError(error, `${what} failed`) });
      setAttempt((value) => value + 1);
    } finally {
      setBusy(false);
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

  if (state.status === 'loading') return <p className="atrium-admin__muted">Loading the canary…</p>;
  if (state.status === 'failed') {
    return (
      <p role="alert" className="atrium-admin__error">
        {state.message}
      </p>
    );
  }
  const { rollout } = state;
  const running = rollout?.state === 'running';
  return (
    <section className="atrium-admin__rollout" aria-label={`Canary of ${remote}`}>
      <p data-testid={`rollout-state-${remote}`}>{rollout ? describeState(rollout) : 'No canary has run.'}</p>
      {outcome && (
        <p role={outcome.ok ? 'status' : 'alert'} className={outcome.ok ? undefined : 'atrium-admin__error'}>
          {outcome.message}
        </p>
      )}
      <form onSubmit={running ? change : start} className="atrium-admin__form">
        {!running && (
          <label>
            Version
            <select
              value={version || candidates[0]?.version || ''}
              onChange={(e) => setVersion(e.target.value)}
            >
              {candidates.map((candidate) => (
                <option key={candidate.version} value={candidate.version}>
                  {candidate.version}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Share of people (%)
          <input
            type="number"
            min={0}
            max={100}
            step={1}
            value={percent}
            onChange={(e) => setPercent(e.target.value)}
          />
        </label>
        <label>
          Roles (comma-separated)
          <input value={roles} onChange={(e) => setRoles(e.target.value)} placeholder="beta-testers" />
        </label>
        <button
          type="submit"
          className="atrium-admin__button"
          disabled={busy || (!running && candidates.length === 0)}
        >
          {running ? 'Change audience' : 'Start canary'}
        </button>
      </form>
      {running && (
        <div className="atrium-admin__actions">
          <button
            type="button"
            className="atrium-admin__button"
            disabled={busy}
            onClick={() => void step('Canary promoted', () => api.post<RolloutDocument>(`${base}/promote`))}
          >
            Promote {rollout.version}
          </button>
          <label>
            Reason
            <input value={reason} onChange={(e) => setReason(e.target.value)} />
          </label>
          <button
            type="button"
            className="atrium-admin__button atrium-admin__button--secondary"
            disabled={busy}
            onClick={() =>
              void step('Canary aborted', () =>
                api.post<RolloutDocument>(`${base}/abort`, reason.trim() ? { reason: reason.trim() } : {}),
              )
            }
          >
            Abort
          </button>
        </div>
      )}
    </section>
  );
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
