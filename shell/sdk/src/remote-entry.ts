/**
 * The file name of every remote's Module Federation container (its entry), which the build writes beside the
 * release's `mf-manifest.json` (`defineRemoteConfig`): the manifest names it, and the shell starts fetching it,
 * with the registry's hash, while it still checks the manifest. Dependency-free: `@atrium/sdk/build` reads it too.
 */
export const REMOTE_ENTRY_FILE = 'remoteEntry.js';

/**
 * The field of a release's `mf-manifest.json` in which the build records the SRI hash (`sha384-…`) of each file
 * the manifest lists for the remote's exposed module, by file name as listed. The manifest's own bytes are pinned
 * by the registry's `manifestIntegrity`, so the shell may load these files with these hashes before the entry
 * that also holds them has run (release-manifest.ts, federation.ts in the shell).
 */
export const MANIFEST_FILE_HASHES = 'atriumFileIntegrity';

/**
 * The global through which a remote's chunks hand their modules to its runtime (`output.chunkLoadingGlobal`,
 * set by `defineRemoteConfig`). The shell gives each release it runs a fresh one, so that chunks of one release
 * never reach the runtime of another release of the same remote in the same page.
 */
export const remoteChunkGlobal = (remote: string): string => `rspackChunkatrium_${remote}`;

/**
 * The files a Module Federation manifest lists for its exposed modules, as listed (relative to the manifest):
 * scripts and style sheets, sync and async, each once. Anything that is not such a list is ignored, so it reads
 * an unchecked manifest safely; what the files may be is for the reader to check.
 */
export function exposedFiles(manifest: unknown): string[] {
  const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
  const files = list(record(manifest).exposes).flatMap((expose) => {
    const assets = record(record(expose).assets);
    return [assets.js, assets.css].flatMap((kind) => [
      ...list(record(kind).sync),
      ...list(record(kind).async),
    ]);
  });
  return [...new Set(files.filter((file): file is string => typeof file === 'string'))];
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
