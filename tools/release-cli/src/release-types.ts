import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { parseReleaseTypes, RELEASE_TYPES_FILE, type ReleaseTypes } from '@atrium/sdk/release-types';
import type { RegisteredVersions } from './registry-client.ts';
import { ReleaseError } from './release-error.ts';
import { releaseDir } from './release-store.ts';

/** Where a release's types are read from: the store folder the CLI writes, else the store's public URL. */
export interface TypesSource {
  storeDir: string;
  storeUrl: string;
}

/** The types a build wrote (`atrium-types.json`, from `@atrium/sdk/build`), or undefined for a build without. */
export function readBuiltTypes(dir: string): ReleaseTypes | undefined {
  const file = join(dir, RELEASE_TYPES_FILE);
  if (!existsSync(file)) return undefined;
  return parsed(readFileSync(file, 'utf8'), file);
}

/**
 * The types of a release in the store: from the store folder when the release is there, else from the store's
 * URL (a pipeline whose folder holds only what it uploads). Undefined for a release published without them.
 *
 * @throws ReleaseError when the store cannot be read or the file is not a release's types.
 */
export async function readStoredTypes(
  source: TypesSource,
  remote: string,
  version: string,
): Promise<ReleaseTypes | undefined> {
  const folder = releaseDir(source.storeDir, remote, version);
  if (existsSync(join(folder, 'mf-manifest.json'))) return readBuiltTypes(folder);
  const url = `${source.storeUrl}/${encodeURIComponent(remote)}/${encodeURIComponent(version)}/${RELEASE_TYPES_FILE}`;
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new ReleaseError(
      `Could not read the types of ${remote} ${version}: it is not in ${source.storeDir} and ${url} did not ` +
        'answer. Set ATRIUM_RELEASE_STORE_DIR or ATRIUM_RELEASE_STORE_URL to the release store.',
      { cause: error },
    );
  }
  if (response.status === 404) return undefined;
  if (!response.ok) {
    throw new ReleaseError(
      `Could not read the types of ${remote} ${version}: ${url} answered ${response.status}.`,
    );
  }
  return parsed(await response.text(), url);
}

function parsed(text: string, source: string): ReleaseTypes {
  try {
    return parseReleaseTypes(text, source);
  } catch (error) {
    throw new ReleaseError(`${(error as Error).message}: rebuild the release with @atrium/sdk/build.`, {
      cause: error,
    });
  }
}

/** A release breaks the type contract of the active one and was not published as breaking. */
export class TypeContractError extends ReleaseError {
  override name = 'TypeContractError';
}

/**
 * The gate of `npm run release`: refuses a release whose exposed types break those of the active release
 * (`npm run types` consumers typecheck against), unless the publisher says it is breaking. Returns what it
 * found, for the log. TypeScript is loaded only when there are two sets of types to compare.
 *
 * @throws TypeContractError saying each breaking change and what to do.
 */
export async function checkTypeContract(options: {
  remote: string;
  version: string;
  next: ReleaseTypes | undefined;
  registered: RegisteredVersions;
  source: TypesSource;
  breaking: boolean;
  resolveFrom: string;
}): Promise<string> {
  const { remote, version, next } = options;
  const activeVersion = options.registered.active;
  // The registry refuses a version it has; it says so when the release is registered.
  if (options.registered.versions.includes(version)) return `types: not compared, ${version} is registered`;
  if (activeVersion === null) {
    return next ? 'types: nothing active to compare with' : 'types: the build has none';
  }
  const active = await readStoredTypes(options.source, remote, activeVersion);
  if (active === undefined) {
    return `types: the active release ${activeVersion} has none to compare with`;
  }
  const changes = next
    ? (await import('./type-compare.ts')).breakingChanges(active, next, options.resolveFrom)
    : [`the build has no ${RELEASE_TYPES_FILE}: build it with @atrium/sdk/build's defineRemoteConfig`];
  if (changes.length === 0) return `types: compatible with the active release ${activeVersion}`;
  const list = changes.map((change) => `\n- ${change}`).join('');
  if (options.breaking) {
    return `types: published as breaking the active release ${activeVersion}:${list}`;
  }
  throw new TypeContractError(
    `${remote} ${version} breaks the types of the active release ${activeVersion}:${list}\n` +
      `Consumers written against ${activeVersion} would fail to typecheck, or break when they run it. Make the ` +
      'change compatible (an optional prop, a type that accepts more), or rerun with --breaking if consumers ' +
      'were told.',
  );
}

/**
 * Writes a release's types to `<outDir>/<remote>/`, replacing what was there: `<remote>/Feature.d.ts` for each
 * exposed module, beside the sdk's declarations it was built against. Returns the folder.
 */
export function writeTypes(types: ReleaseTypes, outDir: string): string {
  const folder = join(outDir, types.remote);
  rmSync(folder, { recursive: true, force: true });
  for (const [path, text] of Object.entries(types.files)) {
    const file = join(folder, path);
    // parseReleaseTypes refused any path that leaves the folder; this checks the joined result too.
    if (relative(folder, file).startsWith('..')) throw new ReleaseError(`${path} is outside ${folder}`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  return folder;
}
