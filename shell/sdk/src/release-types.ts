/**
 * The type declarations of a release: the file a remote's production build writes beside its `mf-manifest.json`
 * (`@atrium/sdk/build`), which the release store keeps at `/<remote>/<version>/atrium-types.json`. The release
 * CLI compares a new release's with the active one's before it publishes, and `npm run types -- pull` writes its
 * files out for a consumer's typecheck. Dependency-free: the release CLI reads it where TypeScript is not needed.
 */
export const RELEASE_TYPES_FILE = 'atrium-types.json';

/** The version of the file's layout; a reader refuses another. */
export const RELEASE_TYPES_FORMAT = 'atrium-release-types/1';

/** The folder of the sdk's declarations inside a release's types, where a declaration's `@atrium/sdk` resolves. */
export const SDK_TYPES_DIR = 'node_modules/@atrium/sdk';

export interface ReleaseTypes {
  readonly format: typeof RELEASE_TYPES_FORMAT;
  readonly remote: string;
  readonly version: string;
  /** The version of `@atrium/sdk` the release was built against; its declarations are under {@link SDK_TYPES_DIR}. */
  readonly sdkVersion: string;
  /** Each exposed module (`./Feature`) and the declaration file that re-exports it (`Feature.d.ts`). */
  readonly exposes: Readonly<Record<string, string>>;
  /** Every declaration file by its path inside the types folder, `/`-separated. */
  readonly files: Readonly<Record<string, string>>;
}

/**
 * Reads a release's types file, or says what is wrong with it.
 *
 * @throws Error naming the file when it is not JSON or not this format.
 */
export function parseReleaseTypes(text: string, source: string): ReleaseTypes {
  let value: Partial<ReleaseTypes>;
  try {
    value = JSON.parse(text) as Partial<ReleaseTypes>;
  } catch (error) {
    throw new Error(`${source} is not JSON`, { cause: error });
  }
  const strings = (record: unknown) =>
    typeof record === 'object' &&
    record !== null &&
    Object.values(record).every((entry) => typeof entry === 'string');
  if (
    value.format !== RELEASE_TYPES_FORMAT ||
    typeof value.remote !== 'string' ||
    typeof value.version !== 'string' ||
    typeof value.sdkVersion !== 'string' ||
    !strings(value.exposes) ||
    !strings(value.files)
  ) {
    throw new Error(`${source} is not a release's types file (${RELEASE_TYPES_FORMAT})`);
  }
  const files = value.files as Record<string, string>;
  for (const path of Object.keys(files)) {
    // Written out by `types pull`: a path must stay inside the folder it is written to.
    if (path.startsWith('/') || path.split('/').some((part) => part === '..' || part === '')) {
      throw new Error(`${source} names a file outside its folder: ${path}`);
    }
  }
  for (const file of Object.values(value.exposes as Record<string, string>)) {
    if (!(file in files)) throw new Error(`${source} exposes ${file}, which it does not hold`);
  }
  return value as ReleaseTypes;
}
