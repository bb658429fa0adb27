// `npm run compat [-- --shell <build folder or mf-manifest.json>]`: before a shell is deployed, says which live
// release (each remote's active version and running canary, from the registry) its build would break, by the
// API's shared-dependency gate (docs/adr/0013-shared-dependency-gate.md). Exit code 1 when one would break.
// Reads the registry as the platform pipeline (atrium-platform), which deploys the shell.
import { parseArgs } from 'node:util';
import { platformCredentialsFromEnv, releaseTargetFromEnv } from '@atrium/release-cli/publish-release';
import { callApi, getDeployerToken } from '@atrium/release-cli/registry-client';
import { exitOnCliError, ReleaseError } from '@atrium/release-cli/release-error';
import { describeProblemToTool } from '@atrium/sdk/problem-sentences';
import { ApiProblemError } from '@atrium/sdk/transport';
import type { components } from '@atrium/sdk/api-types';
import { fromRoot } from '../lib/paths.ts';
import { liveReleasesOf, readShellBuild, shellCompatibility } from './shell-compatibility.ts';

type Schemas = components['schemas'];

const usage = `Usage: npm run compat [-- --shell <dir>]

  --shell <dir>  the shell build to check (its folder, or its mf-manifest.json); default shell/app/dist

Environment (defaults are the local \`npm start\` stack):
  ATRIUM_API_URL             http://localhost:3000
  ATRIUM_ISSUER_URL          http://localhost:8080/realms/atrium
  ATRIUM_PLATFORM_CLIENT_ID  atrium-platform (an administrator: it reads every remote)
  ATRIUM_PLATFORM_SECRET     the realm's development secret`;

try {
  const { values } = parseArgs({
    options: {
      shell: { type: 'string', default: fromRoot('shell/app/dist') },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(usage);
    process.exit(0);
  }
  let shell;
  try {
    shell = readShellBuild(values.shell);
  } catch (error) {
    throw new ReleaseError((error as Error).message);
  }
  const { apiUrl, issuer } = releaseTargetFromEnv();
  const token = await getDeployerToken({ issuer, ...platformCredentialsFromEnv() });
  const read = async <T>(path: string): Promise<T> => {
    try {
      return await callApi<T>(apiUrl, path, token, undefined, 'GET');
    } catch (error) {
      if (!(error instanceof ApiProblemError)) throw error;
      throw new ReleaseError(describeProblemToTool(error, `The API refused GET ${path}`), { cause: error });
    }
  };
  const { remotes } = await read<Schemas['AdminRemoteList']>('/api/admin/remotes');
  const canaries = new Map<string, string>();
  for (const remote of remotes) {
    const { rollout } = await read<{ rollout: Schemas['Rollout'] | null }>(
      `/api/remotes/${encodeURIComponent(remote.name)}/rollout`,
    );
    if (rollout?.state === 'running') canaries.set(remote.name, rollout.version);
  }
  const { lines, breaking } = shellCompatibility(shell, liveReleasesOf(remotes, canaries));
  for (const line of lines) console.log(`[compat] ${line}`);
  if (breaking > 0) {
    console.error(
      `[compat] failed: the shell build ${values.shell} would break ${breaking} live release(s). Deploy releases ` +
        'built against it first, or keep the versions the shell provides.',
    );
    process.exit(1);
  }
  console.log(`[compat] done: the shell build ${values.shell} breaks no live release`);
} catch (error) {
  exitOnCliError('compat', error, usage);
}
