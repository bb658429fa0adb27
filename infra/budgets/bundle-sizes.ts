import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * The budgets from the platform issue, in bytes of gzip. The shell's is checked by the browser journey in
 * e2e/registry-roles.e2e.ts on the scripts it actually requests before the first remote; the remotes' here.
 */
export const BUDGETS = {
  // Raised from 130 KB on 2026-11-23: the merged account, outage, canary and dev-override code measured
  // 132.2 KB before the first remote. An open regression to win back (see the closing note of that day), not
  // a new target.
  shellInitialJs: 133 * 1024,
  remoteEntryJs: 16 * 1024,
} as const;

/** Size of a file as a CDN serves it: gzip at zlib's default level. */
export function gzipSize(file: string): number {
  return gzipSync(readFileSync(file)).length;
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
