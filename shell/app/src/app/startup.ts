import { IndexedDbDPoPStore } from 'oidc-client-ts';
import { DPoPKeyCache } from '../auth/dpop-key-cache';
import { createUserManager } from '../auth/oidc';
import type { SharedUserManager } from '../auth/shared-user-manager';
import { ConfigError, loadRuntimeConfig, type RuntimeConfig } from '../config/runtime-config';
import type { RemoteCatalogue } from '../remote-loading/catalogue/remote-catalogue';

/** How long the page's start waits at most for the early list's request to leave. */
const EARLY_REQUEST_WAIT_MS = 50;

/** The page's start: loading, or the run-time config with its OIDC client, or why the config could not be read. */
export type StartupState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly config: RuntimeConfig; readonly userManager: SharedUserManager }
  | { readonly status: 'failed'; readonly error: ConfigError };

/** The page's start as a store React reads with `useSyncExternalStore`; `retry` starts again after a failure. */
export interface Startup {
  readonly subscribe: (listener: () => void) => () => void;
  readonly getSnapshot: () => StartupState;
  readonly retry: () => void;
}

/**
 * Starts the page, once, before React renders anything: reads the DPoP key (../auth/dpop-key-cache.ts) and has
 * the catalogue check the release the page opens at, as the registry listed it last time (`recall`), while the
 * run-time config loads; creates the OIDC client for it; asks for the list of features (`requestEarly`) and
 * lets that request leave before the session renders, as React's first render of it would delay it.
 */
export function startUp(catalogue: RemoteCatalogue): Startup {
  let state: StartupState = { status: 'loading' };
  const listeners = new Set<() => void>();
  const set = (next: StartupState) => {
    state = next;
    for (const listener of listeners) listener();
  };

  const start = async (): Promise<StartupState> => {
    const dpopStore = new DPoPKeyCache(new IndexedDbDPoPStore());
    dpopStore.warm();
    catalogue.recall();
    const config = await loadRuntimeConfig();
    const userManager = createUserManager(config, { dpopStore });
    // Signing out (here or in another tab) forgets which features this browser saw.
    userManager.events.addUserUnloaded(() => catalogue.forget());
    const early = catalogue.requestEarly(userManager, config.apiBaseUrl, config.remotesUrl);
    await Promise.race([early.sent, new Promise((resolve) => setTimeout(resolve, EARLY_REQUEST_WAIT_MS))]);
    return { status: 'ready', config, userManager };
  };
  const run = () =>
    void start().then(set, (error: unknown) =>
      set({ status: 'failed', error: error instanceof ConfigError ? error : new ConfigError(String(error)) }),
    );

  run();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => state,
    retry() {
      set({ status: 'loading' });
      run();
    },
  };
}
