import { FEATURE_MODULE, type RemoteDescriptor, type RemoteModule } from '@atrium/sdk';
import { loadRemote, registerRemotes } from '@module-federation/enhanced/runtime';

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

export function registerFeatureRemotes(remotes: readonly RemoteDescriptor[]): void {
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
