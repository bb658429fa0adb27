import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ReleaseError } from './release-error.ts';

/** What {@link uploadRelease} did. */
export type UploadOutcome = 'uploaded' | 'already-present';

export interface UploadOptions {
  /** The built remote (its `dist/`). */
  sourceDir: string;
  /** Root of the release store; the release goes to `<storeDir>/<remote>/<version>/`. */
  storeDir: string;
  remote: string;
  version: string;
}

/**
 * Copies a build into the release store under `<remote>/<version>/`. Releases are immutable: the same files
 * again is a no-op, different files under an existing version are refused. The copy goes to a temporary
 * folder first and is renamed into place, so the store never serves half a release.
 */
export function uploadRelease(options: UploadOptions): UploadOutcome {
  const target = releaseDir(options.storeDir, options.remote, options.version);
  if (!existsSync(join(options.sourceDir, 'mf-manifest.json'))) {
    throw new ReleaseError(
      `${options.sourceDir} has no mf-manifest.json: build the remote first (or drop --no-build).`,
    );
  }
  if (existsSync(target)) {
    if (fingerprint(target) === fingerprint(options.sourceDir)) return 'already-present';
    throw new ReleaseError(
      `${options.remote} ${options.version} is already in the release store (${target}) with different ` +
        'files. Releases are immutable: publish a new version (bump package.json or pass --version).',
    );
  }
  const staging = `${target}.uploading-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(dirname(target), { recursive: true });
  cpSync(options.sourceDir, staging, {
    recursive: true,
    // Type declarations are build by-products, not part of what browsers load.
    filter: (source) => !/[/\\]types(-node)?$/.test(source),
  });
  renameSync(staging, target);
  return 'uploaded';
}

/** `<storeDir>/<remote>/<version>`. */
export function releaseDir(storeDir: string, remote: string, version: string): string {
  return join(storeDir, remote, version);
}

/** Subresource-integrity value (`sha384-…`) of a file, e.g. a release's remoteEntry.js. */
export function integrityOf(file: string): string {
  return `sha384-${createHash('sha384').update(readFileSync(file)).digest('base64')}`;
}

function fingerprint(dir: string): string {
  const hash = createHash('sha256');
  for (const file of listFiles(dir, dir)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(join(dir, file)));
  }
  return hash.digest('hex');
}

function listFiles(root: string, dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) {
        return entry === 'types' || entry === 'types-node' ? [] : listFiles(root, path);
      }
      return [relative(root, path)];
    });
}
