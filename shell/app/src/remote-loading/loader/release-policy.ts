import type { RemoteDescriptor } from '@atrium/sdk';
import { registerRemotes, type ModuleFederationRuntimePlugin } from '@module-federation/enhanced/runtime';
import type { FileLoading } from './file-loading';
import { verifyRelease, type VerifiedRelease } from './release-manifest';
import type { TrustedScriptUrls } from './trusted-script-urls';

/** How the federation runtime describes a remote to its plugins' hooks. */
export type RemoteInfo = Parameters<NonNullable<ModuleFederationRuntimePlugin['loadEntry']>>[0]['remoteInfo'];

/** What identifies a release the registry lists: a new entry or hash is another release. */
export const releaseKey = (remote: RemoteDescriptor) =>
  [remote.entry, remote.integrity, remote.manifestIntegrity].join(' ');

/**
 * Which release of each remote may run: the one the registry's current list names, once its manifest checked out
 * ({@link verifyRelease}), registered with the federation runtime as its verified remoteEntry.js and nothing else.
 */
export interface ReleasePolicy {
  /** The verified release of `remote` the runtime may run, if there is one. */
  verified(remote: string): VerifiedRelease | undefined;
  /** Why the runtime must not load `remoteInfo`, or undefined when it is exactly a verified release. */
  refusal(remoteInfo: RemoteInfo): string | undefined;
  /**
   * Starts checking a release the registry listed on an earlier page, and fetching its entry and chunks into the
   * HTTP cache, while the page still asks the registry what it lists now. Nothing runs from it: the fresh list
   * decides, and a release it no longer names is never used ({@link pin}, {@link keepListed}).
   */
  warm(remote: RemoteDescriptor): void;
  /**
   * Verifies the release the registry lists for `remote` and registers its entry with the runtime; reuses an
   * earlier verification of the same release unless `retry`.
   */
  pin(remote: RemoteDescriptor, retry: boolean): Promise<void>;
  /** Forgets every release (verified, being verified, warming) of a remote the registry's list no longer names. */
  keepListed(listed: ReadonlySet<string>): void;
}

/** The release policy of one loader: files fetched ahead through `files`, verified files trusted in `scriptUrls`. */
export function createReleasePolicy(files: FileLoading, scriptUrls: TrustedScriptUrls): ReleasePolicy {
  /**
   * The verification of each remote's current release, by remote name (shared by StrictMode's double effects),
   * with the `release` the runtime may run once verifyRelease passed.
   */
  const pins = new Map<string, { readonly key: string; done: Promise<void>; release?: VerifiedRelease }>();
  /**
   * Checks of releases started before the registry's fresh list arrived, from the list the previous page kept, by
   * remote name. `pin` takes one only for exactly the release the fresh list names (same entry, same hashes):
   * then it is the very check `pin` would make, only started sooner.
   */
  const warming = new Map<
    string,
    { readonly key: string; readonly release: Promise<VerifiedRelease | undefined> }
  >();
  const preload = (url: string, integrity?: string) => files.fetchAhead(url, integrity);

  return {
    verified: (remote) => pins.get(remote)?.release,
    refusal({ name, entry, type, entryGlobalName }) {
      const release = pins.get(name)?.release;
      if (release === undefined) return 'no release of it has been checked against the registry';
      if (entry !== release.entryUrl) return `${entry} is not its verified entry ${release.entryUrl}`;
      if (type !== 'global' && type !== 'var') return `an entry of type "${type}" is not a classic script`;
      if (entryGlobalName !== release.name)
        return `its container global "${entryGlobalName}" is not its name`;
      return undefined;
    },
    warm(remote) {
      const release = verifyRelease(remote, { reload: false, preload }).catch(() => undefined);
      warming.set(remote.name, { key: releaseKey(remote), release });
    },
    pin(remote, retry) {
      const key = releaseKey(remote);
      const current = pins.get(remote.name);
      if (!retry && current?.key === key) return current.done;
      const warm = warming.get(remote.name);
      warming.delete(remote.name);
      const check = () => verifyRelease(remote, { reload: retry, preload });
      // A warm check that failed proves nothing (the store may have been down a moment ago): check again.
      const checking =
        !retry && warm?.key === key ? warm.release.then((checked) => checked ?? check()) : check();
      // In place of the remote's earlier pin: from now on no release of it may run until this one is verified.
      const pin: { readonly key: string; done: Promise<void>; release?: VerifiedRelease } = {
        key,
        done: Promise.resolve(),
      };
      pin.done = checking.then(async (release) => {
        if (retry) await files.refetch([release.entryUrl, ...release.assets]);
        if (pins.get(remote.name) !== pin) return; // superseded by a newer list or a Retry
        pin.release = release;
        scriptUrls.trustRelease(remote.name, release.entryUrl, release.assets);
        // force: the runtime forgets an earlier release of this remote and a cached failed download, so Retry
        // really loads again.
        registerRemotes(
          [{ name: remote.name, entry: release.entryUrl, type: 'global', entryGlobalName: release.name }],
          { force: true },
        );
      });
      pins.set(remote.name, pin);
      pin.done.catch(() => {
        if (pins.get(remote.name) === pin) pins.delete(remote.name);
      });
      return pin.done;
    },
    keepListed(listed) {
      for (const name of [...pins.keys(), ...warming.keys()]) {
        if (listed.has(name)) continue;
        pins.delete(name);
        warming.delete(name);
      }
    },
  };
}
