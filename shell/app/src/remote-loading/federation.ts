import { FEATURE_MODULE, type RemoteDescriptor, type RemoteModule } from '@atrium/sdk';
import {
  loadRemote,
  registerPlugins,
  registerRemotes,
  type ModuleFederationRuntimePlugin,
} from '@module-federation/enhanced/runtime';

/** Typed failure to load a remote's exposed module, rendered by the remote slot. */
export class RemoteLoadError extends Error {
  override readonly name = 'RemoteLoadError';
  constructor(
    readonly remote: RemoteDescriptor,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** SRI hash of each remote's registered remoteEntry.js, by remote name (see integrityPlugin). */
const integrityByRemote = new Map<string, string>();

/**
 * Enforces the registry's integrity hashes. A remote's remoteEntry.js is loaded with `integrity` (and CORS,
 * which SRI needs on another origin), so the browser refuses a file that differs from the one the release
 * CLI hashed and the slot shows its error. Its chunks are covered by the hashes the remote's build writes
 * into remoteEntry.js (SubresourceIntegrityPlugin); the runtime's preloading of them is turned off because
 * the host would load them without those hashes.
 */
export const integrityPlugin: ModuleFederationRuntimePlugin = {
  name: 'atrium-integrity',
  beforePreloadRemote({ preloadOps }) {
    preloadOps.length = 0;
  },
  createScript({ url, remoteInfo }) {
    const integrity = remoteInfo?.entry === url ? integrityByRemote.get(remoteInfo.name) : undefined;
    if (integrity === undefined) return undefined;
    const script = document.createElement('script');
    script.integrity = integrity;
    script.crossOrigin = 'anonymous';
    return script;
  },
};

export function registerFeatureRemotes(remotes: readonly RemoteDescriptor[]): void {
  registerPlugins([integrityPlugin]);
  for (const { name, integrity } of remotes) integrityByRemote.set(name, integrity);
  // force: a list fetched again (Retry) may point a remote at another release.
  registerRemotes(
    remotes.map(({ name, entry }) => ({ name, entry })),
    { force: true },
  );
}

export interface LoadOptions {
  readonly retry: boolean;
  /** The slot gives up (and offers Retry) after this long; the download itself cannot be cancelled. */
  readonly timeoutMs: number;
}

export type FeatureLoader = (remote: RemoteDescriptor, options: LoadOptions) => Promise<RemoteModule>;

export const loadFeature: FeatureLoader = async (remote, { retry, timeoutMs }) => {
  // The runtime caches a failed entry download; re-registering with force drops that cache so Retry
  // really fetches again.
  if (retry) registerRemotes([{ name: remote.name, entry: remote.entry }], { force: true });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new RemoteLoadError(
            remote,
            `${remote.title} did not load within ${timeoutMs / 1000} s (${remote.entry}).`,
          ),
        ),
      timeoutMs,
    );
  });
  let module: RemoteModule | null;
  try {
    module = await Promise.race([
      loadRemote<RemoteModule>(`${remote.name}/${FEATURE_MODULE.slice(2)}`),
      timeout,
    ]);
  } catch (error) {
    if (error instanceof RemoteLoadError) throw error;
    throw new RemoteLoadError(remote, `${remote.title} could not be downloaded from ${remote.entry}.`, {
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
  if (module === null || typeof module?.Feature !== 'function') {
    throw new RemoteLoadError(remote, `${remote.title} does not export a Feature component.`);
  }
  return module;
};
