import type { ModuleFederationRuntimePlugin } from '@module-federation/enhanced/runtime';
import { RemoteRefusedError } from '../remote-load-error';
import type { FileLoading } from './file-loading';
import type { ReleasePolicy } from './release-policy';

/**
 * Makes the registry's word the only way remote code runs. The runtime knows a remote only as the verified
 * remoteEntry.js that the release policy registers after checking the release's manifest ({@link ReleasePolicy.pin}),
 * and this plugin refuses, fail-closed, every other way the runtime could run or fetch remote code:
 * - `afterMatchRemote` (before the runtime resolves anything, e.g. fetches a manifest): a remote registered
 *   with anything but its verified entry, as a classic script defining its own global, is refused;
 * - `loadEntry`: the entry is loaded by `files`, as a classic script with the registry's `integrity` and
 *   `crossorigin="anonymous"`; the runtime's own loaders (which would `import()` an ES module entry) never run;
 * - `fetch`, `createScript`, `createLink`: the runtime fetching a manifest or creating a script or link
 *   itself (a manifest entry, preloading) is refused; `beforePreloadRemote` drops preloads.
 *
 * The chunks a remote loads are covered by the hashes its build wrote into the verified remoteEntry.js
 * (SubresourceIntegrityPlugin); the Feature's files the shell loads alongside the entry, by the same hashes as
 * its verified manifest records them ({@link FileLoading.loadContainer}).
 */
export function releasePinningPlugin(
  policy: ReleasePolicy,
  files: FileLoading,
): ModuleFederationRuntimePlugin {
  return {
    name: 'atrium-release-pinning',
    // The runtime awaits this hook, so a throw here rejects the loadRemote call.
    afterMatchRemote({ remoteInfo }) {
      const reason = remoteInfo === undefined ? undefined : policy.refusal(remoteInfo);
      if (reason !== undefined) throw new RemoteRefusedError(remoteInfo?.name, reason);
    },
    async loadEntry({ remoteInfo }) {
      const reason = policy.refusal(remoteInfo);
      if (reason !== undefined) throw new RemoteRefusedError(remoteInfo.name, reason);
      return files.loadContainer(policy.verified(remoteInfo.name)!);
    },
    fetch(url, _init, remoteInfo) {
      return Promise.reject(
        new RemoteRefusedError(remoteInfo?.name, `the federation runtime may not fetch ${url} itself`),
      );
    },
    createScript({ url, remoteInfo }) {
      throw new RemoteRefusedError(remoteInfo?.name, `the federation runtime may not load the script ${url}`);
    },
    createLink({ url, remoteInfo }) {
      throw new RemoteRefusedError(remoteInfo?.name, `the federation runtime may not load ${url}`);
    },
    beforePreloadRemote({ preloadOps }) {
      preloadOps.length = 0;
    },
  };
}
