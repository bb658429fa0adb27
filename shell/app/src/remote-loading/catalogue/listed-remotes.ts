import type { RemoteDescriptor } from '@atrium/sdk';
import { useSyncExternalStore } from 'react';
import type { RemoteCatalogue } from './remote-catalogue';

/**
 * The signed-in session's list as the shell shows it: loading until the list is adopted (none of it may load
 * before), then the adopted list, or why it could not be read, with Retry.
 */
export type ListedRemotes = { readonly refetch: () => void } & (
  | { readonly status: 'loading'; readonly data: undefined; readonly error: undefined }
  | { readonly status: 'ready'; readonly data: readonly RemoteDescriptor[]; readonly error: undefined }
  | { readonly status: 'failed'; readonly data: undefined; readonly error: unknown }
);

/** Subscribes to `catalogue`: the signed-in session's list, as {@link ListedRemotes}. */
export function useListedRemotes(catalogue: RemoteCatalogue): ListedRemotes {
  const { step, remotes, error } = useSyncExternalStore(catalogue.subscribe, catalogue.getSnapshot);
  const refetch = catalogue.retry;
  if (step === 'adopted') return { refetch, status: 'ready', data: remotes!, error: undefined };
  if (step === 'failed') return { refetch, status: 'failed', data: undefined, error };
  return { refetch, status: 'loading', data: undefined, error: undefined };
}
