import { exposedFiles, MANIFEST_FILE_HASHES, REMOTE_ENTRY_FILE, type RemoteDescriptor } from '@atrium/sdk';
import { RemoteLoadError } from '../remote-load-error';

/**
 * What the shell may run of a release: one classic script pinned by the registry's hash, and the files of its
 * exposed module pinned by the hashes in its manifest, which the registry's hash of the manifest pins.
 */
export interface VerifiedRelease {
  /** The remote's name, which is also the global its container defines. */
  readonly name: string;
  /** Absolute URL of the release's remoteEntry.js, inside the manifest's own folder. */
  readonly entryUrl: string;
  /** The registry's SRI hash of that file. */
  readonly integrity: string;
  /**
   * The files the manifest lists for the remote's exposed modules (chunks, CSS), absolute and inside the
   * release folder. Informational: they load only with the hashes the entry holds, or those in {@link pinned}.
   */
  readonly assets: readonly string[];
  /**
   * Those of {@link assets} the exposed module needs before it runs (not its lazy parts) whose SRI hash the
   * verified manifest records ({@link MANIFEST_FILE_HASHES}), with that hash: the shell loads these alongside the
   * entry. Empty for a release built before the build recorded them.
   */
  readonly pinned: readonly PinnedFile[];
}

/** A release file and the SRI hash its verified manifest records for it. */
export interface PinnedFile {
  readonly url: string;
  readonly integrity: string;
}

// W3C Subresource Integrity: one hash, the algorithms browsers support, base64 digest.
const SRI = /^(sha256|sha384|sha512)-([A-Za-z0-9+/]{43,86}={0,2})$/;
const DIGEST_ALGORITHM = { sha256: 'SHA-256', sha384: 'SHA-384', sha512: 'SHA-512' } as const;

/** Whether `value` is a single well-formed SRI hash such as `sha384-<base64>`. */
export function isIntegrity(value: string): boolean {
  return SRI.test(value);
}

/**
 * Whether `bytes` have the SRI hash `integrity`, computed with Web Crypto. A malformed hash matches nothing.
 */
export async function matchesIntegrity(bytes: ArrayBuffer, integrity: string): Promise<boolean> {
  const match = SRI.exec(integrity);
  if (match === null) return false;
  const [, algorithm, expected] = match as unknown as [string, keyof typeof DIGEST_ALGORITHM, string];
  const digest = new Uint8Array(await crypto.subtle.digest(DIGEST_ALGORITHM[algorithm], bytes));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary) === expected;
}

// Entry types that are classic scripts defining a global container; `module`/`esm` would be import()ed,
// `system` run through SystemJS, and neither can carry an integrity attribute the way the shell loads them.
const CLASSIC_ENTRY_TYPES: ReadonlySet<unknown> = new Set(['global', 'var']);
// A path below the release folder: plain segments, none starting with a dot, no `%` escapes.
const RELEASE_FILE = /^(?:[\w~+-][\w.~+-]*\/)*[\w~+-][\w.~+-]*$/;

/**
 * Checks what a verified manifest names and returns the URL of the one script the shell will run, or why
 * it must not run. The entry must be a classic script (`global` or `var`), resolved like the runtime would
 * (`publicPath: 'auto'`: beside the manifest) to a `.js` file in the manifest's own folder on its own
 * origin, defining the container global named after the remote.
 */
export function manifestEntry(
  manifest: unknown,
  manifestUrl: string,
  remoteName: string,
): { readonly entryUrl: string } | { readonly problem: string } {
  const metaData = isRecord(manifest) ? manifest.metaData : undefined;
  if (!isRecord(metaData) || !isRecord(metaData.remoteEntry)) {
    return { problem: 'it is not a Module Federation manifest (no metaData.remoteEntry)' };
  }
  const { name, path = '', type } = metaData.remoteEntry;
  if (!CLASSIC_ENTRY_TYPES.has(type)) {
    return {
      problem: `its entry is of type ${JSON.stringify(type)}; only classic scripts (global or var) are run`,
    };
  }
  if (metaData.publicPath !== 'auto' || 'getPublicPath' in metaData) {
    return { problem: "it does not load its files from its own folder (publicPath must be 'auto')" };
  }
  if (metaData.globalName !== remoteName) {
    return {
      problem: `its container global is ${JSON.stringify(metaData.globalName)}, not "${remoteName}"`,
    };
  }
  if (typeof name !== 'string' || typeof path !== 'string') {
    return { problem: 'it names no entry file' };
  }
  const base = new URL(manifestUrl);
  const relative = path.replace(/^\.\//, '').replace(/\/+$/, '');
  const entry = inReleaseFolder(relative === '' ? name : `${relative}/${name}`, base);
  if (entry === undefined) {
    return {
      problem: `its entry ${JSON.stringify(relative === '' ? name : `${path}/${name}`)} is outside the release folder ${folderOf(base)}`,
    };
  }
  return { entryUrl: entry };
}

export interface VerifyOptions {
  /** Bypass the HTTP cache (Retry after the store was repaired). */
  readonly reload: boolean;
  /**
   * Told each file the release will load as soon as it is known, with the SRI hash it will be loaded with when
   * that is known, to start fetching it (never running it): the entry while the manifest is still being fetched
   * and checked (every remote's is {@link REMOTE_ENTRY_FILE} beside its manifest; the registry's hash), then the
   * chunks and style sheets the checked manifest lists (the manifest's hash of those it pins). Not on reload, and
   * nothing for a release the registry recorded no valid hashes of.
   */
  readonly preload?: (url: string, integrity?: string) => unknown;
}

/**
 * Fetches a release's `mf-manifest.json`, checks that its bytes are exactly those the registry hashed at
 * publish (`manifestIntegrity`) and what it names ({@link manifestEntry}), and returns the one script the
 * shell may run with the registry's hash of it. Nothing of the manifest is used before the check.
 *
 * @throws {@link RemoteLoadError} `download` when the manifest cannot be fetched, `refused` otherwise.
 */
export async function verifyRelease(
  remote: RemoteDescriptor,
  { reload, preload }: VerifyOptions,
): Promise<VerifiedRelease> {
  const refuse = (reason: string) =>
    new RemoteLoadError(remote, 'refused', `${remote.title} was not loaded: ${reason}.`);
  if (!isIntegrity(remote.manifestIntegrity)) {
    throw refuse('the registry recorded no valid hash of its manifest');
  }
  if (!isIntegrity(remote.integrity)) {
    throw refuse('the registry recorded no valid hash of its remoteEntry.js');
  }
  if (!reload) preload?.(new URL(REMOTE_ENTRY_FILE, remote.entry).href, remote.integrity);
  const unreachable = (detail: string, cause?: unknown) =>
    new RemoteLoadError(
      remote,
      'download',
      `${remote.title} could not be downloaded from ${remote.entry}${detail}.`,
      { cause },
    );
  let bytes: ArrayBuffer;
  try {
    const response = await fetch(remote.entry, {
      mode: 'cors',
      credentials: 'omit',
      cache: reload ? 'reload' : 'no-cache',
    });
    if (!response.ok) throw unreachable(` (HTTP ${response.status})`);
    bytes = await response.arrayBuffer();
  } catch (error) {
    throw error instanceof RemoteLoadError ? error : unreachable('', error);
  }
  if (!(await matchesIntegrity(bytes, remote.manifestIntegrity))) {
    throw refuse(`its manifest (${remote.entry}) is not the one the registry recorded at publish`);
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw refuse(`its manifest (${remote.entry}) is not JSON`);
  }
  const checked = manifestEntry(manifest, remote.entry, remote.name);
  if ('problem' in checked) throw refuse(`its manifest (${remote.entry}) is refused: ${checked.problem}`);
  const files = listedFiles(manifest, new URL(remote.entry));
  const assets = files.map(({ url }) => url);
  if (!reload) for (const { url, integrity } of files) preload?.(url, integrity);
  const pinned = files.filter((file): file is PinnedFile => file.integrity !== undefined);
  return { name: remote.name, entryUrl: checked.entryUrl, integrity: remote.integrity, assets, pinned };
}

/** The URL of the manifest's folder, e.g. `https://cdn.example/profile/1.0.0/`. */
function folderOf(manifestUrl: URL): string {
  return new URL('./', manifestUrl).href;
}

/**
 * `reference` resolved against the manifest URL, if that is a `.js` or `.css` file in the manifest's folder
 * on its origin: plain segments, none starting with a dot, no escapes (a %2F or %2E%2E that the URL parser
 * keeps but a server might decode), no query or fragment.
 */
function inReleaseFolder(reference: string, manifestUrl: URL, extension = /\.js$/): string | undefined {
  let url: URL;
  try {
    url = new URL(reference, manifestUrl);
  } catch {
    return undefined;
  }
  const folder = folderOf(manifestUrl);
  const inside =
    url.href.startsWith(folder) &&
    url.search === '' &&
    url.hash === '' &&
    RELEASE_FILE.test(url.href.slice(folder.length)) &&
    extension.test(url.pathname);
  return inside ? url.href : undefined;
}

/**
 * The chunk and CSS files the manifest lists for its exposed modules that lie inside the release folder, each
 * needed before the module runs with the well-formed SRI hash the manifest records for it, if any.
 */
function listedFiles(manifest: unknown, manifestUrl: URL): { url: string; integrity?: string }[] {
  const hashes = isRecord(manifest) ? manifest[MANIFEST_FILE_HASHES] : undefined;
  // Only what the Feature needs before it runs is loaded ahead; its lazy parts load when it asks for them.
  const needed = new Set(exposedFiles(manifest, 'sync'));
  const files = new Map<string, string | undefined>();
  for (const name of exposedFiles(manifest)) {
    const url = inReleaseFolder(name, manifestUrl, /\.(?:js|css)$/);
    if (url === undefined) continue;
    const hash = isRecord(hashes) && Object.hasOwn(hashes, name) ? hashes[name] : undefined;
    if (needed.has(name) && typeof hash === 'string' && isIntegrity(hash)) files.set(url, hash);
    else if (!files.has(url)) files.set(url, undefined);
  }
  return [...files].map(([url, integrity]) => (integrity === undefined ? { url } : { url, integrity }));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
