import { ReleaseError } from './release-error.ts';
import { callApi, type Problem } from './registry-client.ts';

/** One step of a canary, as the release CLI's `rollout` command takes it. */
export type RolloutStep =
  | { kind: 'start'; version: string; percent?: number; roles?: string[] }
  | { kind: 'change'; percent?: number; roles?: string[] }
  | { kind: 'promote' }
  | { kind: 'abort'; reason?: string }
  | { kind: 'status' };

/** The canary as the API answers it, trimmed to what the CLI reports. */
export interface RolloutState {
  remote: string;
  version: string;
  stableVersion: string | null;
  percent: number;
  roles: string[];
  state: 'running' | 'promoted' | 'aborted';
  endedBy: string | null;
  reason: string | null;
}

/**
 * Takes one canary step for a remote with the deployer's token (its owner, or an administrator): the API
 * decides who gets the canary and audits the step.
 *
 * @throws ReleaseError with the API's own explanation for every refusal, and what to do about it.
 */
export async function rolloutStep(options: {
  apiUrl: string;
  token: string;
  remote: string;
  step: RolloutStep;
}): Promise<RolloutState | null> {
  const { step } = options;
  const base = `/api/remotes/${encodeURIComponent(options.remote)}/rollout`;
  const response =
    step.kind === 'start'
      ? await callApi(options.apiUrl, base, options.token, withoutKind(step))
      : step.kind === 'change'
        ? await callApi(options.apiUrl, base, options.token, withoutKind(step), 'PATCH')
        : step.kind === 'status'
          ? await callApi(options.apiUrl, base, options.token, undefined, 'GET')
          : await callApi(options.apiUrl, `${base}/${step.kind}`, options.token, withoutKind(step));
  if (response.ok) {
    const body = (await response.json()) as RolloutState | { rollout: RolloutState | null };
    return 'rollout' in body ? body.rollout : body;
  }
  const problem = (await response.json().catch(() => ({}))) as Problem;
  const said = problem.detail ?? problem.title ?? `HTTP ${response.status}`;
  if (problem.code === 'not_remote_owner' || problem.code === 'insufficient_scope') {
    throw new ReleaseError(
      `${said} Run it with the owning deployer's credentials (ATRIUM_DEPLOYER_CLIENT_ID / ` +
        'ATRIUM_DEPLOYER_SECRET), or ask an administrator (the admin console has the same controls).',
    );
  }
  if (response.status === 400) {
    const fields = (problem.errors ?? []).map((error) => `${error.field} ${error.message}`);
    throw new ReleaseError(`The API refused the step: ${fields.length > 0 ? fields.join('; ') : said}.`);
  }
  // rollout_in_progress, no_rollout, no_stable_version, version_not_found, remote_not_found: the API's
  // detail says what to do.
  throw new ReleaseError(`${said}${problem.code ? ` (${problem.code})` : ''}`);
}

function withoutKind<T extends { kind: string }>(step: T): Omit<T, 'kind'> {
  const { kind: _kind, ...rest } = step;
  return rest;
}

/** One line describing the canary, for the CLI's output. */
export function describeRollout(remote: string, rollout: RolloutState | null): string {
  if (!rollout) return `${remote}: no canary has run`;
  const audience = [
    `${rollout.percent} % of people`,
    ...(rollout.roles.length ? [`roles ${rollout.roles.join(', ')}`] : []),
  ].join(' and ');
  const stable = rollout.stableVersion ?? 'none';
  switch (rollout.state) {
    case 'running':
      return `${remote}: canary ${rollout.version} runs for ${audience}; everybody else gets ${stable}`;
    case 'promoted':
      return `${remote}: canary ${rollout.version} was promoted; everybody gets ${stable}`;
    case 'aborted':
      return (
        `${remote}: canary ${rollout.version} was aborted by ${rollout.endedBy ?? 'someone'}` +
        `${rollout.reason ? ` (${rollout.reason})` : ''}; everybody gets ${stable}`
      );
  }
}
