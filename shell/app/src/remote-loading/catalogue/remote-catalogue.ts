import type { ApiClient, RemoteDescriptor } from '@atrium/sdk';
import type { UserManager } from 'oidc-client-ts';
import { hasAuthParams } from 'react-oidc-context';
import type { DevServer, ListedRemote, RemoteLoader } from '../loader/remote-loader';
import { initialCatalogueState, type CatalogueState } from './catalogue-state';
import { requestRemotesEarly, type EarlyRemotes } from './early-remotes';
import { forgetRemotes, recallRoutedRemote, rememberRemotes } from './remembered-remotes';
import { getRemotes, parseRemotes, routedRemote } from './remotes-list';

/** The registry's list with this tab's dev overrides applied, and the dev servers they run from. */
export interface OverriddenList {
  readonly remotes: readonly RemoteDescriptor[];
  readonly devServers: readonly DevServer[];
}

/** What a signed-in session gives the catalogue to ask for its list with. */
export interface CatalogueSession {
  /** The session's API client, and where the registry's list is (`remotesUrl` of the run-time config). */
  readonly api: Pick<ApiClient, 'get'>;
  readonly remotesUrl: string;
  /** Whether someone is still signed in: a fresh list is kept for the next page only then. */
  readonly isSignedIn: () => Promise<boolean>;
  /** Applies this tab's dev overrides to the registry's list, before any of it is adopted; absent: none. */
  readonly applyDevOverrides?:
    ((remotes: readonly RemoteDescriptor[]) => Promise<OverriddenList>) | undefined;
}

export interface CatalogueOptions {
  /** The page's remote loader: it checks the remembered release ahead, and runs only the adopted list. */
  readonly loader: Pick<RemoteLoader, 'warm' | 'adopt'>;
  /**
   * Whether this tab has, or its address asks for, a dev override: its early list is then not adopted, the
   * signed-in session applies the overrides first.
   */
  readonly wantsDevOverride: () => boolean;
  /** Where the list is kept for the next page (localStorage). */
  readonly storage?: Storage;
  /** The page's path now: the remote whose route it is in starts loading as soon as a list is adopted. */
  readonly pathname?: () => string;
}

/**
 * The registry's list of features over one page's life, in one store (./catalogue-state.ts for its states):
 * remembered from the previous page, asked for early, asked for by the signed-in session, with this tab's dev
 * overrides applied, adopted by the loader, and watched while the session lasts (./release-watch.tsx: releases
 * the registry pulls are refused, newer ones offered with a reload). React reads it with `useSyncExternalStore(subscribe,
 * getSnapshot)`; the shell's composition calls the rest, once each where its comment says.
 */
export interface RemoteCatalogue {
  readonly subscribe: (listener: () => void) => () => void;
  readonly getSnapshot: () => CatalogueState;
  /**
   * At the page's start: the release of the page's path in the list the previous page kept (if it still reads
   * well) is checked and fetched ahead by the loader while the page asks for the fresh list. A hint, never an
   * authority. Nothing while a sign-in completes (the address is the sign-in's callback).
   */
  recall(): void;
  /**
   * As soon as the run-time config is read: asks for the list with the stored session (./early-remotes.ts), and
   * adopts the answer as soon as it is read, unless the tab has dev overrides. The page's first signed-in session
   * takes that answer instead of asking again. Settles `sent` once the request has left.
   */
  requestEarly(userManager: UserManager, apiBaseUrl: string, remotesUrl: string): EarlyRemotes;
  /**
   * A signed-in session asks for its list (the early one, the first time), which is kept for the next page, has
   * the session's dev overrides applied and is adopted: only its releases may load, and the one the page opens
   * at starts loading. Returns how to close the session: an answer that comes later is dropped.
   */
  open(session: CatalogueSession): () => void;
  /**
   * The adopted list again, with the releases the registry no longer serves marked as pulled (the release watch
   * heard of them): their slots see new descriptors and ask the loader again, which refuses them, saying why.
   */
  markPulled(remotes: readonly ListedRemote[]): void;
  /** Asks the registry again for the open session's list (after a failure). */
  readonly retry: () => void;
  /** Forgets the kept list (the person signed out: the next person's features are theirs). */
  forget(): void;
}

/** When the release watch's first check is due: its chunk is fetched then. */
const WATCH_START_MS = 10_000;

export function createRemoteCatalogue({
  loader,
  wantsDevOverride,
  storage = localStorage,
  pathname = () => window.location.pathname,
}: CatalogueOptions): RemoteCatalogue {
  let state = initialCatalogueState;
  const listeners = new Set<() => void>();
  const set = (change: Partial<CatalogueState>) => {
    state = { ...state, ...change };
    for (const listener of listeners) listener();
  };
  const adopt = (remotes: readonly RemoteDescriptor[], devServers: readonly DevServer[] = []) =>
    loader.adopt(remotes, { ahead: routedRemote(remotes, pathname()), devServers });

  let early: Promise<readonly RemoteDescriptor[] | undefined> | undefined;
  let session: CatalogueSession | undefined;
  /** The session's current attempt (opened, or Retry): aborted when superseded or closed, it changes nothing after. */
  let attempt: AbortController | undefined;

  /** A new attempt at the session's list, from `pending` (the early answer) or else the registry. */
  const load = (
    { api, remotesUrl, isSignedIn, applyDevOverrides }: CatalogueSession,
    pending?: Promise<readonly RemoteDescriptor[] | undefined>,
  ) => {
    attempt?.abort();
    const { signal } = (attempt = new AbortController());
    set({ step: 'loading', remotes: undefined, error: undefined });
    void (async () => {
      const listed = (await pending) ?? (await getRemotes(api, remotesUrl, signal));
      if (signal.aborted) return;
      set({ step: 'fresh', remotes: listed, listed });
      // Kept only while someone is signed in: an answer that lands after a sign-out (here or in another tab,
      // which forgets the kept list) must not write it back.
      void isSignedIn().then((signedIn) => signedIn && rememberRemotes(listed, storage));
      const { remotes, devServers } = applyDevOverrides
        ? await applyDevOverrides(listed)
        : { remotes: listed, devServers: [] };
      if (signal.aborted) return;
      adopt(remotes, devServers);
      set({ step: 'adopted', remotes });
      // The release watch (a chunk of its own) runs until this attempt ends; without it the page works on. It is
      // fetched when its first check is due, never beside the first feature's files (the initial-JS budget).
      const watch = setTimeout(
        () =>
          void import('./release-watch').then(
            (module) =>
              module.watchReleases(
                catalogue,
                {
                  api,
                  remotesUrl,
                  parse: parseRemotes,
                  remember: (fresh) => rememberRemotes(fresh, storage),
                },
                signal,
              ),
            () => undefined,
          ),
        WATCH_START_MS,
      );
      signal.addEventListener('abort', () => clearTimeout(watch));
    })().catch((error: unknown) => signal.aborted || set({ step: 'failed', remotes: undefined, error }));
  };

  const catalogue: RemoteCatalogue = {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => state,
    recall() {
      const remembered = hasAuthParams() ? undefined : recallRoutedRemote(pathname(), storage);
      if (remembered === undefined) return;
      set({ remembered });
      loader.warm(remembered);
    },
    requestEarly(userManager, apiBaseUrl, remotesUrl) {
      const request = requestRemotesEarly(userManager, apiBaseUrl, remotesUrl);
      early = request.remotes;
      // Once a session took an early list, none serves another (a Retry, a later session) however often asked.
      if (state.early !== 'taken') set({ early: 'asking' });
      void early.then((remotes) => {
        if (early !== request.remotes) return; // a newer request (the config was loaded again)
        // The remote this page opens at starts loading now, while React may still be rendering the session. A tab
        // with a dev override leaves that to the signed-in session, which applies the override to the list first.
        if (remotes !== undefined && !wantsDevOverride()) adopt(remotes);
        if (state.early === 'asking') set({ early: remotes === undefined ? 'none' : 'answered' });
      });
      return request;
    },
    open(opened) {
      session = opened;
      // The early list serves the page's first signed-in session only.
      const takes = state.early === 'asking' || state.early === 'answered';
      if (takes) set({ early: 'taken' });
      load(opened, takes ? early : undefined);
      return () => {
        if (session !== opened) return;
        session = undefined;
        attempt?.abort();
        set({ step: 'closed', remotes: undefined, error: undefined });
      };
    },
    markPulled: (remotes) => set({ remotes }),
    retry: () => {
      if (session !== undefined) load(session);
    },
    forget: () => forgetRemotes(storage),
  };
  return catalogue;
}
