import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { run } from '../lib/processes.ts';
import { repoRoot } from '../lib/paths.ts';

const skip = new Set(['node_modules', 'dist', '.data', 'test-results']);

function newestMtime(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) {
    if (skip.has(entry)) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/**
 * The deployables `npm start` needs: the file a finished build always writes (compared by time, so type
 * declarations or a half-written dist/ never pass for a build) and the folders whose changes make it stale.
 */
export const buildables: readonly { workspace: string; output: string; inputs: readonly string[] }[] = [
  { workspace: 'services/api', output: 'dist/main.js', inputs: ['services/api'] },
  { workspace: 'shell/app', output: 'dist/index.html', inputs: ['shell/app', 'shell/sdk'] },
  // Every remote workspace: a new remote made from the profile one is built without touching this file.
  ...readdirSync(join(repoRoot, 'remotes'))
    .filter((name) => existsSync(join(repoRoot, 'remotes', name, 'package.json')))
    .sort()
    .map((name) => ({
      workspace: `remotes/${name}`,
      output: 'dist/mf-manifest.json',
      inputs: [`remotes/${name}`, 'shell/sdk'],
    })),
];

/**
 * Builds every deployable (or those of `only`) whose sources are newer than its dist/ (or that has never
 * been built).
 */
export async function buildStale(
  root: string,
  log: (line: string) => void,
  only?: readonly string[],
): Promise<void> {
  for (const { workspace, output, inputs } of buildables) {
    if (only && !only.includes(workspace)) continue;
    const built = statSync(join(root, workspace, output), { throwIfNoEntry: false })?.mtimeMs ?? 0;
    const source = Math.max(...inputs.map((input) => newestMtime(join(root, input))));
    if (built > source) {
      log(`${workspace}: build is up to date`);
      continue;
    }
    log(`${workspace}: building…`);
    const started = Date.now();
    await run('npm', ['run', 'build', '--workspace', workspace], { cwd: root, quiet: true });
    log(`${workspace}: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}
