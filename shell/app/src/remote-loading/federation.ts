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
  registerRemotes(remotes.map(({ name, entry }) => ({ name, entry })));
}

export type FeatureLoader = (remote: RemoteDescriptor, options: { retry: boolean }) => Promise<RemoteModule>;

export const loadFeature: FeatureLoader = async (remote, { retry }) => {
  // The runtime caches a failed entry download; re-registering with force drops that cache so Retry
  // really fetches again.
  if (retry) registerRemotes([{ name: remote.name, entry: remote.entry }], { force: true });
  let module: RemoteModule | null;
  try {
    module = await loadRemote<RemoteModule>(`${remote.name}/${FEATURE_MODULE.slice(2)}`);
  } catch (error) {
    throw new RemoteLoadError(remote, `${remote.title} could not be downloaded.`, { cause: error });
  }
  if (module === null || typeof module.Feature !== 'function') {
    throw new RemoteLoadError(remote, `${remote.title} does not export a Feature component.`);
  }
  return module;
};
