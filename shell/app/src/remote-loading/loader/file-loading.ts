import type { ModuleFederationRuntimePlugin } from '@module-federation/enhanced/runtime';
import { RemoteRefusedError } from '../remote-load-error';
import type { PinnedFile, VerifiedRelease } from './release-manifest';
import type { TrustedScriptUrls } from './trusted-script-urls';

type LoadEntryArgs = Parameters<NonNullable<ModuleFederationRuntimePlugin['loadEntry']>>[0];
/** A remote's container, as its remoteEntry.js defines it. */
export type RemoteContainer = NonNullable<LoadEntryArgs['remoteEntryExports']>;

/** A remote's remoteEntry.js did not load: unreachable, or refused by the browser's integrity check. */
export class EntryScriptError extends Error {
  override readonly name = 'EntryScriptError';
  constructor(readonly url: string) {
    super(`${url} did not load`);
  }
}

/**
 * The files of verified releases, put in the page: each release's entry and pinned files as elements with their
 * hashes, and the files a release will load fetched ahead. It holds the preloads no element has taken yet and
 * takes the failed ones, so that a failure is never handed to the loader's own element or to Retry's. Script URLs
 * go through the loader's Trusted Types policy ({@link TrustedScriptUrls.loaderScriptUrl}).
 */
export interface FileLoading {
  /**
   * Runs a verified release: its remoteEntry.js as a classic script pinned by the registry's hash and, alongside
   * it, the files its Feature needs pinned by the hashes in its verified manifest ({@link VerifiedRelease.pinned}):
   * a chunk runs only to hand its modules to the entry's runtime (through the release's own chunk-loading global),
   * a style sheet is left where the runtime finds it, so neither is asked for only after the entry ran. A pinned
   * file the browser refuses is left to the runtime, which asks for it with the hash the entry holds and reports
   * it. Resolves with the container once nothing it added is still loading; a failed run takes its style sheets
   * away.
   */
  loadContainer(release: VerifiedRelease): Promise<RemoteContainer>;
  /**
   * Starts fetching a file the release will load, never running it. A file whose SRI hash is known (the entry,
   * and the files its verified manifest pins) is preloaded: a `<link rel=preload>` with that hash and CORS is the
   * very request the script or style sheet that loads it will make, so that element takes it from the page's
   * memory instead of reading the HTTP cache again. Other files are fetched into the HTTP cache.
   */
  fetchAhead(url: string, integrity?: string): void;
  /**
   * Fetches files again into the HTTP cache. A browser keeps a file it refused (wrong hash) in its cache, and a
   * release's files are cached as immutable for a year, so without this Retry would meet the refused copy again
   * even after the store was repaired.
   */
  refetch(urls: readonly string[]): Promise<void>;
  /** Takes the failed preloads of scripts that are trusted now (the registry's fresh list names their release). */
  takeTrustedFailedPreloads(): void;
}

const isStyleSheet = (url: string) => new URL(url).pathname.endsWith('.css');
const fileKey = (url: string, integrity: string) => `${integrity} ${url}`;

/**
 * Fetches a release file into the HTTP cache, where the script or style sheet that needs it will find it
 * (`reload`: again, past the cached copy). Fetched, never run: the scripts still load only with their hashes.
 */
const fetchIntoCache = (url: string, cache: RequestCache = 'default') =>
  // Same request mode and credentials as a crossorigin="anonymous" script, so the same cache entry.
  fetch(url, { mode: 'cors', credentials: 'same-origin', cache })
    .then((response) => response.arrayBuffer())
    .catch(() => undefined); // the script load that follows reports what is wrong

function isContainer(value: unknown): value is RemoteContainer {
  const candidate = value as Partial<Record<keyof RemoteContainer, unknown>> | null | undefined;
  return typeof candidate?.init === 'function' && typeof candidate.get === 'function';
}

/** The page's file loading for the releases of one loader, whose script URLs `scriptUrls` decides. */
export function createFileLoading(scriptUrls: TrustedScriptUrls): FileLoading {
  /** The preloads still loading that no element of the shell's has asked for yet, by file and hash. */
  const unclaimed = new Map<string, HTMLLinkElement>();
  /** Failed preloads of scripts no element could take yet, their URLs not being trusted then (takeFailedPreload). */
  const untrusted = new Map<string, PinnedFile>();
  /** The closed shadow root that holds the elements taking failed preloads (takerRoot). */
  let takers: ShadowRoot | undefined;

  /**
   * An element of the shell's asking for a release file with its hash and CORS (SRI on another origin needs a CORS
   * request): the script, its URL through the loader's Trusted Types policy (which throws for a file not pinned),
   * or the style sheet. Asking, it takes the file's preload, if there is one.
   */
  const fileElement = (url: string, integrity: string): HTMLScriptElement | HTMLLinkElement => {
    let element;
    if (isStyleSheet(url)) {
      element = document.createElement('link');
      element.rel = 'stylesheet';
      element.href = url;
    } else {
      element = document.createElement('script');
      element.src = scriptUrls.loaderScriptUrl(url);
    }
    element.integrity = integrity;
    element.crossOrigin = 'anonymous';
    unclaimed.delete(fileKey(url, integrity));
    untrusted.delete(fileKey(url, integrity));
    return element;
  };

  /**
   * Loads the script `url`, which the browser runs only if it has the hash `integrity`; the element is removed
   * once it ran or failed.
   */
  const loadScript = (url: string, integrity: string) =>
    new Promise<void>((resolve, reject) => {
      const script = fileElement(url, integrity);
      script.onload = () => {
        script.remove();
        resolve();
      };
      script.onerror = () => {
        script.remove();
        reject(new EntryScriptError(url));
      };
      document.head.append(script);
    });

  /**
   * Loads one pinned file of a release: a chunk as a script with its hash (resolves with nothing once it ran), a
   * style sheet as a link with its hash, left in the page (resolves with it). Never rejects: a file the browser
   * refused is removed, and the runtime's own request for it reports the failure.
   */
  const loadPinnedFile = async ({ url, integrity }: PinnedFile): Promise<HTMLLinkElement | undefined> => {
    if (!isStyleSheet(url)) {
      await loadScript(url, integrity).catch(() => undefined);
      return undefined;
    }
    return new Promise((resolve) => {
      const sheet = fileElement(url, integrity) as HTMLLinkElement;
      sheet.onload = () => resolve(sheet);
      sheet.onerror = () => {
        sheet.remove();
        resolve(undefined);
      };
      document.head.append(sheet);
    });
  };

  const takerRoot = (): ShadowRoot => {
    if (takers === undefined || !takers.host.isConnected) {
      const host = document.createElement('div');
      host.hidden = true;
      host.dataset['atriumPreloadTakers'] = '';
      document.body.append(host);
      takers = host.attachShadow({ mode: 'closed' });
    }
    return takers;
  };

  /**
   * Takes a preload that failed (a file missing, unreachable or not matching its hash) with an element of its own
   * that makes exactly that request: the browser hands a failed preload to the next element asking for the file,
   * which would otherwise be the loader's, and again Retry's after the store was repaired. The element is put in
   * a shadow root, where a remote's runtime looking through the document for a style sheet or script already
   * loading cannot take it for its own (it would count a style sheet without its loading mark as loaded), and is
   * removed once settled.
   */
  const takeFailedPreload = (url: string, integrity: string): void => {
    // A script the loader's Trusted Types policy does not pass yet (a release the registry's current list does not
    // name yet: a remembered one) is taken once the fresh list names it (takeTrustedFailedPreloads).
    if (!isStyleSheet(url) && !scriptUrls.isTrusted(url)) {
      untrusted.set(fileKey(url, integrity), { url, integrity });
      return;
    }
    const element = fileElement(url, integrity);
    element.onload = element.onerror = () => element.remove();
    takerRoot().append(element);
  };

  return {
    async loadContainer(release) {
      // The entry assigns its container to this global as its last step: a run that stops short of it must not
      // find the container of a release that ran before.
      Reflect.set(globalThis, release.name, undefined);
      const [entryLoaded, sheets] = await Promise.all([
        loadScript(release.entryUrl, release.integrity).then(
          () => true,
          () => false,
        ),
        Promise.all(release.pinned.map(loadPinnedFile)),
      ]);
      const container = (globalThis as unknown as Record<string, unknown>)[release.name];
      if (entryLoaded && isContainer(container)) return container;
      for (const sheet of sheets) sheet?.remove();
      if (!entryLoaded) throw new EntryScriptError(release.entryUrl);
      throw new RemoteRefusedError(
        release.name,
        `${release.entryUrl} defines no container "${release.name}"`,
      );
    },
    fetchAhead(url, integrity) {
      if (integrity === undefined) {
        void fetchIntoCache(url);
        return;
      }
      const key = fileKey(url, integrity);
      // One preload per file while it loads: a second one would share its download, and its failure with it.
      if (unclaimed.has(key)) return;
      const preload = document.createElement('link');
      preload.rel = 'preload';
      preload.as = isStyleSheet(url) ? 'style' : 'script';
      preload.href = url;
      preload.integrity = integrity;
      preload.crossOrigin = 'anonymous';
      unclaimed.set(key, preload);
      // Loaded, it waits for its element in the browser's memory; only one still loading can share a download.
      preload.onload = () => {
        if (unclaimed.get(key) === preload) unclaimed.delete(key);
      };
      preload.onerror = () => {
        preload.remove();
        // An element of the shell's that asked for the file meanwhile took the preload, and its failure with it:
        // another element would make a request of its own, and could run the file outside the loader.
        if (unclaimed.get(key) !== preload) return;
        unclaimed.delete(key);
        takeFailedPreload(url, integrity);
      };
      document.head.append(preload);
    },
    async refetch(urls) {
      await Promise.all(urls.map((url) => fetchIntoCache(url, 'reload')));
    },
    takeTrustedFailedPreloads() {
      for (const [key, { url, integrity }] of untrusted) {
        if (!scriptUrls.isTrusted(url)) continue;
        untrusted.delete(key);
        takeFailedPreload(url, integrity);
      }
    },
  };
}
