// `npm run rollout --workspace remotes/<name> -- <step>`: the remote's canary, as its owning deployer. The API
// chooses who gets it (a share of people by a hash of their verified identity, and/or role holders) and
// audits every step; the admin console has the same controls.
import { parseArgs } from 'node:util';
import {
  platformCredentialsFromEnv,
  readRemotePackage,
  releaseTargetFromEnv,
  targetForOwner,
} from './publish-release.ts';
import { getDeployerToken } from './registry-client.ts';
import { ReleaseError } from './release-error.ts';
import { describeRollout, rolloutStep, type RolloutStep } from './rollout-client.ts';

const usage = `Usage: npm run rollout --workspace remotes/<name> -- <step> [options]

Steps:
  start <x.y.z> [--percent N] [--role R]...  serve a published version to N % of people and/or role holders
  widen [--percent N] [--role R]...          change the running canary's share or roles
  promote                                    make the canary the version everybody gets
  abort [--reason "..."]                     everybody gets the stable version again
  status                                     show the latest canary

Environment: ATRIUM_API_URL, ATRIUM_ISSUER_URL, ATRIUM_DEPLOYER_CLIENT_ID, ATRIUM_DEPLOYER_SECRET
(as for \`npm run release\`).`;

/** Parses the command line into a step; throws ReleaseError with the usage when it makes no sense. */
export function parseRolloutArgs(args: string[]): RolloutStep {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      percent: { type: 'string' },
      role: { type: 'string', multiple: true },
      reason: { type: 'string' },
    },
    strict: true,
  });
  const [kind, version, ...extra] = positionals;
  const percent = values.percent === undefined ? undefined : Number(values.percent);
  if (percent !== undefined && !(Number.isInteger(percent) && percent >= 0 && percent <= 100)) {
    throw new ReleaseError(`--percent must be a whole number from 0 to 100, not "${values.percent}".`);
  }
  const audience = {
    ...(percent !== undefined ? { percent } : {}),
    ...(values.role ? { roles: values.role } : {}),
  };
  if (kind === 'start' && version && extra.length === 0) return { kind, version, ...audience };
  if (kind === 'widen' && !version && (percent !== undefined || values.role)) {
    return { kind: 'change', ...audience };
  }
  if ((kind === 'promote' || kind === 'status') && !version) return { kind };
  if (kind === 'abort' && !version) return { kind, ...(values.reason ? { reason: values.reason } : {}) };
  throw new ReleaseError(`Cannot understand "${args.join(' ')}".\n\n${usage}`);
}

if (import.meta.main) {
  try {
    const step = parseRolloutArgs(process.argv.slice(2));
    const remote = readRemotePackage(process.cwd());
    const name = remote.atrium.remote;
    // The remote's owner takes the step: the platform's client for platform code, else the team's deployer.
    const target = targetForOwner(releaseTargetFromEnv(), remote.atrium.owner, platformCredentialsFromEnv());
    const token = await getDeployerToken(target);
    const rollout = await rolloutStep({ apiUrl: target.apiUrl, token, remote: name, step });
    console.log(`[rollout] ${describeRollout(name, rollout)}`);
  } catch (error) {
    console.error(
      error instanceof ReleaseError || (error instanceof TypeError && 'code' in error)
        ? `[rollout] failed: ${error.message}`
        : `[rollout] failed unexpectedly: ${String(error)}`,
    );
    process.exit(1);
  }
}
