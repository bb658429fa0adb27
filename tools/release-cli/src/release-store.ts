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
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ReleaseError } from './release-error.ts';

/** A version is already in the store with other files: releases are immutable, so it cannot be replaced. */
export class ReleaseConflictError extends ReleaseError {
  override name = 'ReleaseConflictError';
}

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
    throw new ReleaseConflictError(
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

/**
 * The file the browser loads as a release's container: the manifest's `metaData.remoteEntry` (path and name)
 * beside the manifest, which is where the runtime resolves it when `publicPath` is `auto`. Its hash is the
 * one the shell enforces, so it must be exactly this file; anything else is refused.
 */
export function remoteEntryFile(dir: string): string {
  const manifestFile = join(dir, 'mf-manifest.json');
  let metaData: { publicPath?: unknown; remoteEntry?: { path?: unknown; name?: unknown } } | undefined;
  try {
    metaData = (JSON.parse(readFileSync(manifestFile, 'utf8')) as { metaData?: typeof metaData }).metaData;
  } catch (error) {
    throw new ReleaseError(`${manifestFile} cannot be read as JSON.`, { cause: error });
  }
  const { path = '', name } = metaData?.remoteEntry ?? {};
  if (typeof name !== 'string' || name === '' || typeof path !== 'string') {
    throw new ReleaseError(`${manifestFile} names no metaData.remoteEntry: is it a Module Federation build?`);
  }
  if (metaData?.publicPath !== 'auto') {
    throw new ReleaseError(
      `${manifestFile} has publicPath ${JSON.stringify(metaData?.publicPath)}: build remotes with ` +
        "publicPath 'auto' so browsers load remoteEntry.js from the release store, next to the manifest.",
    );
  }
  const file = resolve(dir, path, name);
  if (!file.startsWith(resolve(dir) + sep) || !existsSync(file)) {
    throw new ReleaseError(`${manifestFile} names ${join(path, name)}, which is not in the release.`);
  }
  return file;
}

/** A digest of every file under `dir` (names and contents), the same for the same build. */
export function fingerprint(dir: string): string {
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
