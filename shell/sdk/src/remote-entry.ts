/**
 * The file name of every remote's Module Federation container (its entry), which the build writes beside the
 * release's `mf-manifest.json` (`defineRemoteConfig`): the manifest names it, and the shell starts fetching it,
 * with the registry's hash, while it still checks the manifest. Dependency-free: `@atrium/sdk/build` reads it too.
 */
export const REMOTE_ENTRY_FILE = 'remoteEntry.js';
