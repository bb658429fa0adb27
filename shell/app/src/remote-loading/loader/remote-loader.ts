import { FEATURE_MODULE, REMOTE_ENTRY_FILE, type RemoteDescriptor, type RemoteModule } from '@atrium/sdk';
import {
  loadRemote,
  registerPlugins,
  type ModuleFederationRuntimePlugin,
} from '@module-federation/enhanced/runtime';
import { RemoteLoadError, RemoteRefusedError } from '../remote-load-error';
import { createFileLoading, EntryScriptError } from './file-loading';
import { createReleasePolicy, releaseKey } from './release-policy';
import { releasePinningPlugin } from './runtime-plugin';
import type { TrustedScriptUrls } from './trusted-script-urls';

export interface LoadOptions {
  readonly retry: boolean;
  /** The slot gives up (and offers Retry) after this long; the download itself cannot be cancelled. */
  readonly timeoutMs: number;
}

/**
 * A remote as the page's list holds it. `pulled` is set once the registry no longer serves its release
 * (withdrawn, or a canary rolled back): why, and what to do, in words the slot shows instead of loading it.
 */
export type ListedRemote = RemoteDescriptor & { readonly pulled?: string };

export type FeatureLoader = (remote: ListedRemote, options: LoadOptions) => Promise<RemoteModule>;

/** A dev server an approved dev override runs a remote from: the files in `folder` (chunks, hot updates). */
export interface DevServer {
  readonly remote: string;
  readonly folder: string;
}

/** What comes with a list the loader adopts. */
export interface AdoptOptions {
  /** The remote to start loading now, before its slot asks (the one the page opens at). */
  readonly ahead?: RemoteDescriptor | undefined;
  /** The dev servers of the list's overridden remotes, whose files become trusted script URLs. */
  readonly devServers?: readonly DevServer[];
}

/**
 * Runs remotes' releases, and only as the registry listed them: one per page, created by the shell's composition
 * and handed to whoever needs it. It holds everything loading keeps between calls: the verified releases and the
 * checks under way (./release-policy.ts), the preloads (./file-loading.ts), the Features loading ahead, and the
 * script URLs it trusts (./trusted-script-urls.ts, which the page's Trusted Types policies read). The federation
 * runtime knows its {@link plugin} (./runtime-plugin.ts) and nothing else of it; the runtime keeps the first
 * plugin of a name, hence one loader per page.
 */
export interface RemoteLoader {
  /** The runtime plugin that closes every load path but the loader's own; registered with each adopted list. */
  readonly plugin: ModuleFederationRuntimePlugin;
  /**
   * Starts checking a release an earlier page's list named (a hint, never an authority), and fetching its entry
   * and chunks into the HTTP cache. Nothing of it runs unless the registry's fresh list names that very release
   * (same entry, same hashes).
   */
  warm(remote: RemoteDescriptor): void;
  /**
   * Takes the registry's fresh list: only its releases may load from now on (the plugin is installed, each listed
   * entry becomes a trusted script URL, every remote the list no longer names is forgotten), and `ahead` starts
   * loading: its release is verified, then its entry and Feature module load as {@link loadFeature} would load
   * them, while the shell renders its route; the slot's {@link loadFeature} then takes that load once. Each listed
   * remote is otherwise verified and registered with the runtime when its slot first loads it.
   */
  adopt(remotes: readonly RemoteDescriptor[], options?: AdoptOptions): void;
  /**
   * Loads a remote's Feature: verifies its release against the registry, lets the runtime load the verified
   * entry, and turns every failure into a {@link RemoteLoadError}; a release the registry pulled never loads.
   */
  readonly loadFeature: FeatureLoader;
}

/** The page's remote loader, telling `scriptUrls` (the Trusted Types policies' rule) what it may load. */
export function createRemoteLoader(scriptUrls: TrustedScriptUrls): RemoteLoader {
  const files = createFileLoading(scriptUrls);
  const policy = createReleasePolicy(files, scriptUrls);
  const plugin = releasePinningPlugin(policy, files);
  /** The Feature module of the remote a page opens at, loading since the list named it; its slot takes it once. */
  const ahead = new Map<string, { readonly key: string; readonly module: Promise<RemoteModule | null> }>();

  /** Verifies `remote`'s release and has the runtime load its verified entry and its Feature module. */
  const loadVerified = (remote: RemoteDescriptor, retry: boolean) =>
    policy
      .pin(remote, retry)
      .then(() => loadRemote<RemoteModule>(`${remote.name}/${FEATURE_MODULE.slice(2)}`));

  return {
    plugin,
    warm: (remote) => policy.warm(remote),
    adopt(remotes, { ahead: routed, devServers = [] } = {}) {
      registerPlugins([plugin]);
      for (const { remote, folder } of devServers) scriptUrls.trustDevServer(remote, folder);
      scriptUrls.trustListedEntries(remotes, REMOTE_ENTRY_FILE);
      files.takeTrustedFailedPreloads();
      const listed = new Set(remotes.map(({ name }) => name));
      policy.keepListed(listed);
      for (const name of ahead.keys()) if (!listed.has(name)) ahead.delete(name);
      // Already loading ahead (the early list started it, and the session's list names it again).
      if (routed === undefined || ahead.get(routed.name)?.key === releaseKey(routed)) return;
      const module = loadVerified(routed, false);
      module.catch(() => undefined); // the slot reports it
      ahead.set(routed.name, { key: releaseKey(routed), module });
    },
    async loadFeature(remote, { retry, timeoutMs }) {
      if (remote.pulled !== undefined) throw new RemoteLoadError(remote, 'withdrawn', remote.pulled);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new RemoteLoadError(
                remote,
                'timeout',
                `${remote.title} did not load within ${timeoutMs / 1000} s (${remote.entry}).`,
              ),
            ),
          timeoutMs,
        );
      });
      const early = ahead.get(remote.name);
      ahead.delete(remote.name);
      let module: RemoteModule | null;
      try {
        module = await Promise.race([
          !retry && early?.key === releaseKey(remote) ? early.module : loadVerified(remote, retry),
          timeout,
        ]);
      } catch (error) {
        throw toLoadError(remote, error);
      } finally {
        clearTimeout(timer);
      }
      if (module === null || typeof module?.Feature !== 'function') {
        throw new RemoteLoadError(remote, 'invalid', `${remote.title} does not export a Feature component.`);
      }
      return module;
    },
  };
}

function toLoadError(remote: RemoteDescriptor, error: unknown): RemoteLoadError {
  if (error instanceof RemoteLoadError) return error;
  if (error instanceof RemoteRefusedError) {
    return new RemoteLoadError(remote, 'refused', `${remote.title} was not loaded: ${error.reason}.`, {
      cause: error,
    });
  }
  const unverifiable = (url: string) =>
    new RemoteLoadError(
      remote,
      'download',
      `${remote.title} could not be loaded from ${url}: the file is unreachable or is not the one ` +
        'its release recorded.',
      { cause: error },
    );
  if (error instanceof EntryScriptError) return unverifiable(error.url);
  // A chunk the remote's own runtime loads with the hash its verified remoteEntry.js holds.
  const chunk = error as { name?: unknown; request?: unknown } | null;
  if (chunk?.name === 'ChunkLoadError' && typeof chunk.request === 'string') {
    return unverifiable(chunk.request);
  }
  return new RemoteLoadError(
    remote,
    'download',
    `${remote.title} could not be downloaded from ${remote.entry}.`,
    {
      cause: error,
    },
  );
}
