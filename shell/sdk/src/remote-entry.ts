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
 * The bundler's name for one release of a remote (`output.uniqueName`, set by `defineRemoteConfig`): rspack
 * names the release's chunk-loading global after it and marks the script and style sheet elements its runtime
 * adds with it. One per release, so two releases of a remote in one page (after a rollback, a canary's switch,
 * a Retry) never take each other's chunks or style sheets, however their loads interleave. A version's
 * characters other than letters and digits are written as `_` and four hex digits, which keeps it an
 * identifier, distinct per version.
 */
export function remoteUniqueName(remote: string, version: string): string {
  const tag = version.replace(
    /[^A-Za-z0-9]/g,
    (char) => `_${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return `atrium_${remote}_${tag}`;
}

/**
 * The files a Module Federation manifest lists for its exposed modules, as listed (relative to the manifest):
 * scripts and style sheets, each once; `sync`: only those the module needs before it runs (not its lazy parts).
 * Anything that is not such a list is ignored, so it reads an unchecked manifest safely; what the files may be is
 * for the reader to check.
 */
export function exposedFiles(
  manifest: unknown,
  loaded: 'sync' | 'sync and async' = 'sync and async',
): string[] {
  const list = (value: unknown): readonly unknown[] => (Array.isArray(value) ? value : []);
  const files = list(record(manifest).exposes).flatMap((expose) => {
    const assets = record(record(expose).assets);
    return [assets.js, assets.css].flatMap((kind) => [
      ...list(record(kind).sync),
      ...(loaded === 'sync' ? [] : list(record(kind).async)),
    ]);
  });
  return [...new Set(files.filter((file): file is string => typeof file === 'string'))];
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
