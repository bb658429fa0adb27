// `npm run new:remote -- <name> [--title "Time off"]`: makes remotes/<name> from infra/templates/remote, links
// it into the workspace and builds it; with the local stack running (`npm start`) it also creates the remote
// in the registry (an administrator's act, as the dev stack's atrium-platform client) owned by the feature
// teams' deployer, and publishes and activates its first version, as `npm start` does for every remote.
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { assertNodeVersion } from '../dev/toolchain.ts';
import {
  createRemotes,
  platformCredentialsFromEnv,
  publishRelease,
  readRemotePackage,
  releaseTargetFromEnv,
  repoRoot,
  targetForOwner,
} from '@atrium/release-cli/publish-release';
import { ReleaseError } from '@atrium/release-cli/release-error';
import { getDeployerToken } from '@atrium/release-cli/registry-client';
import { NewRemoteError, scaffoldRemote } from './new-remote.ts';
import { remoteNameProblem } from './remote-name.ts';

const usage = `Usage: npm run new:remote -- <name> [--title "Time off"]

  <name>   the remote's name: its folder remotes/<name>, route /<name>, registry and container name
  --title  its navigation label (default: the name with a capital letter)`;

const log = (line: string) => console.log(`[new:remote] ${line}`);

try {
  assertNodeVersion();
  const { values, positionals } = parseArgs({
    options: { title: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help || positionals.length !== 1) {
    console.log(usage);
    process.exit(values.help ? 0 : 1);
  }
  const name = positionals[0]!;
  const problem = remoteNameProblem(name);
  if (problem) throw new NewRemoteError(problem);

  const target = releaseTargetFromEnv();
  const platform = platformCredentialsFromEnv();
  const stackUp = await answers(`${target.apiUrl}/api/health/ready`);
  // A name the registry has already is refused before anything is written.
  if (stackUp && (await registryHas(name, target, platform))) {
    throw new NewRemoteError(
      `The registry at ${target.apiUrl} already has a remote "${name}": choose another name.`,
    );
  }

  const made = scaffoldRemote({ root: repoRoot, name, ...(values.title ? { title: values.title } : {}) });
  log(`created remotes/${name} (dev server port ${made.devPort}):\n  ${made.files.join('\n  ')}`);
  try {
    step('formatting it (prettier)…', 'npx', [
      'prettier',
      '--write',
      '--log-level',
      'warn',
      `remotes/${name}`,
    ]);
    step('linking it into the workspace (npm install)…', 'npm', ['install', '--no-audit', '--no-fund']);
    step(`building remotes/${name}…`, 'npm', ['run', 'build', '--workspace', `remotes/${name}`]);
  } catch (error) {
    log(`remotes/${name} is written but not ready; fix the problem above and run \`npm install\` again.`);
    throw error;
  }

  if (!stackUp) {
    console.log(`
[new:remote] remotes/${name} is ready. The stack is not running (nothing answered at ${target.apiUrl}), so the
registry does not know the remote yet. Either:
  - run \`npm start\`: it creates every remote under remotes/ and publishes and activates its build; or
  - have an administrator create it (admin console → New remote: name ${name}, title ${made.title},
    path /${name}, owner atrium-deployer), then \`npm run release --workspace remotes/${name} -- --activate\`.
`);
    process.exit(0);
  }

  const remote = readRemotePackage(made.dir);
  await createRemotes([remote], target, platform, log);
  const published = await publishRelease({
    remote,
    target: targetForOwner(target, remote.atrium.owner, platform),
    build: false,
    activate: true,
    log,
  });
  console.log(`
[new:remote] ${name} ${published.version} is live in the shell at /${name} (reload the page).
  Develop:   npm run dev --workspace remotes/${name}   (dev server on http://localhost:${made.devPort})
  Release:   npm run release --workspace remotes/${name} -- --version 0.2.0 --activate
  Roll back: npm run rollback --workspace remotes/${name} -- --to ${published.version}
`);
} catch (error) {
  if (error instanceof NewRemoteError || error instanceof ReleaseError) {
    console.error(`[new:remote] failed: ${error.message}`);
  } else {
    console.error('[new:remote] failed unexpectedly:', error);
  }
  process.exit(1);
}

function step(what: string, command: string, args: string[]): void {
  log(what);
  const result = spawnSync(command, args, { cwd: repoRoot, stdio: 'inherit' });
  if (result.status !== 0) {
    throw new NewRemoteError(`\`${command} ${args.join(' ')}\` failed (exit code ${result.status}).`);
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(3_000) });
    return true;
  } catch {
    return false;
  }
}

/** Whether the registry knows the remote, asked as the platform's client (an administrator). */
async function registryHas(
  name: string,
  target: ReturnType<typeof releaseTargetFromEnv>,
  platform: ReturnType<typeof platformCredentialsFromEnv>,
): Promise<boolean> {
  const token = await getDeployerToken({ issuer: target.issuer, ...platform });
  const response = await fetch(`${target.apiUrl}/api/remotes/${encodeURIComponent(name)}/versions`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  if (response.status === 404) return false;
  if (response.ok) return true;
  throw new ReleaseError(
    `The API answered HTTP ${response.status} when asked whether remote ${name} exists; is the realm's ` +
      'atrium-platform client an administrator?',
  );
}
