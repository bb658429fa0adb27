import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** The budgets from the platform issue, in bytes of gzip. */
export const BUDGETS = {
  shellInitialJs: 130 * 1024,
  remoteEntryJs: 16 * 1024,
} as const;

/** Size of a file as a CDN serves it: gzip at zlib's default level. */
export function gzipSize(file: string): number {
  return gzipSync(readFileSync(file)).length;
}

/**
 * The shell's JavaScript loaded before the first remote is requested. The shell has no lazy routes: the
 * entry in index.html loads the bootstrap chunk and the shared singletons (react, react-dom, @atrium/sdk)
 * before it asks the registry for remotes, so every .js file of its build counts. (It can only over-count;
 * the browser journey measures the requests actually made.) Fails when the build is missing.
 */
export function shellInitialJs(distDir: string): { files: { file: string; gzip: number }[]; total: number } {
  const index = join(distDir, 'index.html');
  if (!existsSync(index))
    throw new Error(`${index} is missing: run \`npm run build\` before the size check.`);
  const html = readFileSync(index, 'utf8');
  const entries = [...html.matchAll(/<script[^>]+src="\/?([^"]+\.js)"/g)].map((match) => match[1]!);
  if (entries.length === 0) throw new Error(`${index} loads no script: is it the shell's build?`);
  const files = readdirSync(distDir)
    .filter((file) => file.endsWith('.js'))
    .map((file) => ({ file, gzip: gzipSize(join(distDir, file)) }));
  for (const entry of entries) {
    if (!files.some(({ file }) => file === entry))
      throw new Error(`${index} loads ${entry}, which is not in ${distDir}.`);
  }
  return { files, total: files.reduce((sum, { gzip }) => sum + gzip, 0) };
}

/** Every built remote's remoteEntry.js with its gzip size. */
export function remoteEntries(remotesDir: string): { remote: string; file: string; gzip: number | null }[] {
  return readdirSync(remotesDir)
    .filter((name) => existsSync(join(remotesDir, name, 'package.json')))
    .map((remote) => {
      const file = join(remotesDir, remote, 'dist/remoteEntry.js');
      return { remote, file, gzip: existsSync(file) ? gzipSize(file) : null };
    });
}
