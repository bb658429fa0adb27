import type { RemoteDescriptor } from '@atrium/sdk';
import { parseRemotes, routedRemote } from './remotes-list';

const STORAGE_KEY = 'atrium:last-remotes';

/**
 * Keeps the registry's latest list for this browser, so the next page can start fetching the release it opens
 * at before the fresh list arrives (./remote-catalogue.ts). A hint, never an authority: what runs is
 * decided by the fresh list alone.
 */
export function rememberRemotes(remotes: readonly RemoteDescriptor[], storage: Storage = localStorage): void {
  try {
    // Removed first, so a full storage leaves nothing rather than an older list.
    storage.removeItem(STORAGE_KEY);
    storage.setItem(STORAGE_KEY, JSON.stringify({ remotes }));
  } catch {
    // Storage full or refused: the next page just starts with the fresh list.
  }
}

/** The remote of `pathname` in the list {@link rememberRemotes} kept, if there is one and it still reads well. */
export function recallRoutedRemote(
  pathname: string,
  storage: Storage = localStorage,
): RemoteDescriptor | undefined {
  try {
    const kept = storage.getItem(STORAGE_KEY);
    if (kept === null) return undefined;
    const remembered = parseRemotes(JSON.parse(kept), 'the remembered list of features');
    return routedRemote(remembered, pathname);
  } catch {
    return undefined;
  }
}

/** Forgets the kept list (the person signed out: the next person's features are theirs). */
export function forgetRemotes(storage: Storage = localStorage): void {
  try {
    storage.removeItem(STORAGE_KEY);
  } catch {
    // nothing kept
  }
}
