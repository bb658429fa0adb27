import { describeProblemToTool } from '@atrium/sdk/problem-sentences';
import { ApiProblemError, type ApiSchemas } from '@atrium/sdk/transport';
import { ReleaseError } from './release-error.ts';
import { callApi } from './registry-client.ts';

/** One step of a canary, as the release CLI's `rollout` command takes it. */
export type RolloutStep =
  | { kind: 'start'; version: string; percent?: number; roles?: string[] }
  | { kind: 'change'; percent?: number; roles?: string[] }
  | { kind: 'promote' }
  | { kind: 'abort'; reason?: string }
  | { kind: 'status' };

/** A canary as the API answers it (`Rollout` of the contract). */
export type RolloutDocument = ApiSchemas['schemas']['Rollout'];

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
}): Promise<RolloutDocument | null> {
  const { step } = options;
  const base = `/api/remotes/${encodeURIComponent(options.remote)}/rollout`;
  const send = <T>(path: string, method: 'GET' | 'POST' | 'PATCH', body?: unknown) =>
    callApi<T>(options.apiUrl, path, options.token, body, method);
  try {
    switch (step.kind) {
      case 'start':
        return await send<RolloutDocument>(base, 'POST', withoutKind(step));
      case 'change':
        return await send<RolloutDocument>(base, 'PATCH', withoutKind(step));
      case 'status':
        return (await send<{ rollout: RolloutDocument | null }>(base, 'GET')).rollout;
      default:
        return await send<RolloutDocument>(`${base}/${step.kind}`, 'POST', withoutKind(step));
    }
  } catch (error) {
    if (!(error instanceof ApiProblemError)) throw error;
    const said = describeProblemToTool(error);
    if (error.code === 'not_remote_owner' || error.code === 'insufficient_scope') {
      throw new ReleaseError(
        `${said} Run it with the owning deployer's credentials (ATRIUM_DEPLOYER_CLIENT_ID / ` +
          'ATRIUM_DEPLOYER_SECRET), or ask an administrator (the admin console has the same controls).',
        { cause: error },
      );
    }
    if (['validation_failed', 'http_400'].includes(error.code)) {
      throw new ReleaseError(describeProblemToTool(error, 'The API refused the step'), { cause: error });
    }
    // rollout_in_progress, no_rollout, no_stable_version, version_not_found, remote_not_found: the API's
    // detail says what to do.
    throw new ReleaseError(`${said} (${error.code})`, { cause: error });
  }
}

function withoutKind<T extends { kind: string }>(step: T): Omit<T, 'kind'> {
  const { kind: _kind, ...rest } = step;
  return rest;
}

/** One line describing the canary, for the CLI's output. */
export function describeRollout(remote: string, rollout: RolloutDocument | null): string {
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
