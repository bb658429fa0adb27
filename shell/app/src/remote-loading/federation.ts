import { FEATURE_MODULE, REMOTE_ENTRY_FILE, type RemoteDescriptor, type RemoteModule } from '@atrium/sdk';
import {
  loadRemote,
  registerPlugins,
  registerRemotes,
  type ModuleFederationRuntimePlugin,
} from '@module-federation/enhanced/runtime';
import { verifyRelease, type PinnedFile, type VerifiedRelease } from './release-manifest';
import { routedRemote } from './remembered-remotes';
import { RemoteLoadError, RemoteRefusedError } from './remote-load-error';
import { isTrustedScriptUrl, loaderScriptUrl, trustListedEntries, trustRelease } from './trusted-script-urls';

type LoadEntryArgs = Parameters<NonNullable<ModuleFederationRuntimePlugin['loadEntry']>>[0];
type RemoteInfo = LoadEntryArgs['remoteInfo'];
type RemoteEntryExports = NonNullable<LoadEntryArgs['remoteEntryExports']>;

/** The releases the runtime may run, by remote name; a release is added only once verifyRelease passed. */
const verified = new Map<string, VerifiedRelease>();

/** Why the runtime must not load `remoteInfo`, or undefined when it is exactly a verified release. */
function refusal({ name, entry, type, entryGlobalName }: RemoteInfo): string | undefined {
  const release = verified.get(name);
  if (release === undefined) return 'no release of it has been checked against the registry';
  if (entry !== release.entryUrl) return `${entry} is not its verified entry ${release.entryUrl}`;
  if (type !== 'global' && type !== 'var') return `an entry of type "${type}" is not a classic script`;
  if (entryGlobalName !== release.name) return `its container global "${entryGlobalName}" is not its name`;
  return undefined;
}

/**
 * Makes the registry's word the only way remote code runs. The runtime knows a remote only as the verified
 * remoteEntry.js that {@link loadFeature} registers after checking the release's manifest, and this plugin
 * refuses, fail-closed, every other way the runtime could run or fetch remote code:
 * - `afterMatchRemote` (before the runtime resolves anything, e.g. fetches a manifest): a remote registered
 *   with anything but its verified entry, as a classic script defining its own global, is refused;
 * - `loadEntry`: the entry is loaded here, as a classic script with the registry's `integrity` and
 *   `crossorigin="anonymous"`; the runtime's own loaders (which would `import()` an ES module entry) never run;
 * - `fetch`, `createScript`, `createLink`: the runtime fetching a manifest or creating a script or link
 *   itself (a manifest entry, preloading) is refused; `beforePreloadRemote` drops preloads.
 *
 * The chunks a remote loads are covered by the hashes its build wrote into the verified remoteEntry.js
 * (SubresourceIntegrityPlugin); the Feature's files the shell loads alongside the entry, by the same hashes as
 * its verified manifest records them ({@link loadContainer}).
 */
export const releasePinningPlugin: ModuleFederationRuntimePlugin = {
  name: 'atrium-release-pinning',
  // The runtime awaits this hook, so a throw here rejects the loadRemote call.
  afterMatchRemote({ remoteInfo }) {
    const reason = remoteInfo === undefined ? undefined : refusal(remoteInfo);
    if (reason !== undefined) throw new RemoteRefusedError(remoteInfo?.name, reason);
  },
  async loadEntry({ remoteInfo }) {
    const reason = refusal(remoteInfo);
    if (reason !== undefined) throw new RemoteRefusedError(remoteInfo.name, reason);
    return loadContainer(verified.get(remoteInfo.name)!);
  },
  fetch(url, _init, remoteInfo) {
    return Promise.reject(
      new RemoteRefusedError(remoteInfo?.name, `the federation runtime may not fetch ${url} itself`),
    );
  },
  createScript({ url, remoteInfo }) {
    throw new RemoteRefusedError(remoteInfo?.name, `the federation runtime may not load the script ${url}`);
  },
  createLink({ url, remoteInfo }) {
    throw new RemoteRefusedError(remoteInfo?.name, `the federation runtime may not load ${url}`);
  },
  beforePreloadRemote({ preloadOps }) {
    preloadOps.length = 0;
  },
};

/** A remote's remoteEntry.js did not load: unreachable, or refused by the browser's integrity check. */
class EntryScriptError extends Error {
  override readonly name = 'EntryScriptError';
  constructor(readonly url: string) {
    super(`${url} did not load`);
  }
}

/**
 * Runs a verified release: its remoteEntry.js as a classic script pinned by the registry's hash and, alongside it,
 * the files its Feature needs pinned by the hashes in its verified manifest ({@link VerifiedRelease.pinned}): a
 * chunk runs only to hand its modules to the entry's runtime (through the release's own chunk-loading global), a
 * style sheet is left where the runtime finds it, so neither is asked for only after the entry ran. A pinned file
 * the browser refuses is left to the runtime, which asks for it with the hash the entry holds and reports it.
 * Resolves with the container once nothing it added is still loading; a failed run takes its style sheets away.
 */
async function loadContainer(release: VerifiedRelease): Promise<RemoteEntryExports> {
  // The entry assigns its container to this global as its last step: a run that stops short of it must not find
  // the container of a release that ran before.
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
  throw new RemoteRefusedError(release.name, `${release.entryUrl} defines no container "${release.name}"`);
}

/**
 * Loads `url` as a classic script that the browser runs only if it has the hash `integrity`; the element is
 * removed once it ran or failed. SRI on another origin needs a CORS request.
 */
function loadScript(url: string, integrity: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const script = document.createElement('script');
    // Through the loader's Trusted Types policy, which throws (rejecting this load) for a file not pinned.
    script.src = loaderScriptUrl(url);
    script.integrity = integrity;
    script.crossOrigin = 'anonymous';
    script.async = true;
    script.onload = () => {
      script.remove();
      resolve();
    };
    script.onerror = () => {
      script.remove();
      reject(new EntryScriptError(url));
    };
    claimPreload(url, integrity);
    document.head.append(script);
  });
}

/**
 * Loads one pinned file of a release: a chunk as a script with its hash (resolves with nothing once it ran), a
 * style sheet as a link with its hash, left in the page (resolves with it). Never rejects: a file the browser
 * refused is removed, and the runtime's own request for it reports the failure.
 */
async function loadPinnedFile({ url, integrity }: PinnedFile): Promise<HTMLLinkElement | undefined> {
  if (!isStyleSheet(url)) {
    await loadScript(url, integrity).catch(() => undefined);
    return undefined;
  }
  return new Promise((resolve) => {
    const sheet = document.createElement('link');
    sheet.rel = 'stylesheet';
    sheet.href = url;
    sheet.integrity = integrity;
    sheet.crossOrigin = 'anonymous';
    sheet.onload = () => resolve(sheet);
    sheet.onerror = () => {
      sheet.remove();
      resolve(undefined);
    };
    claimPreload(url, integrity);
    document.head.append(sheet);
  });
}

function isContainer(value: unknown): value is RemoteEntryExports {
  const candidate = value as Partial<Record<keyof RemoteEntryExports, unknown>> | null | undefined;
  return typeof candidate?.init === 'function' && typeof candidate.get === 'function';
}

/** The verification of each remote's current release, by remote name (shared by StrictMode's double effects). */
const pinning = new Map<string, { readonly key: string; done: Promise<void> }>();

/** What identifies a release the registry lists: a new entry or hash is another release. */
const releaseKey = (remote: RemoteDescriptor) =>
  [remote.entry, remote.integrity, remote.manifestIntegrity].join(' ');

/** The Feature module of the remote a page opens at, loading since the list named it; its slot takes it once. */
const ahead = new Map<string, { readonly key: string; readonly module: Promise<RemoteModule | null> }>();

/**
 * Checks of releases started before the registry's fresh list arrived, from the list the previous page kept
 * (./remembered-remotes.ts), by remote name. {@link pinRelease} takes one only for exactly the release the fresh
 * list names (same entry, same hashes): then it is the very check pinRelease would make, only started sooner.
 */
const warming = new Map<
  string,
  { readonly key: string; readonly release: Promise<VerifiedRelease | undefined> }
>();

/**
 * Starts checking a release the registry listed on an earlier page, and fetching its entry and chunks into the
 * HTTP cache, while the page still asks the registry what it lists now. Nothing runs from it: the fresh list
 * decides, and a release it no longer names is never used ({@link pinRelease}, {@link registerFeatureRemotes}).
 */
export function warmRelease(remote: RemoteDescriptor): void {
  const release = verifyRelease(remote, { reload: false, preload: fetchAhead }).catch(() => undefined);
  warming.set(remote.name, { key: releaseKey(remote), release });
}

/** Verifies `remote`'s release and has the runtime load its verified entry and its Feature module. */
const loadVerified = (remote: RemoteDescriptor, retry: boolean) =>
  pinRelease(remote, retry).then(() => loadRemote<RemoteModule>(`${remote.name}/${FEATURE_MODULE.slice(2)}`));

/**
 * Verifies the release the registry lists for `remote` and registers its entry with the runtime; reuses an
 * earlier verification of the same release unless `retry`.
 */
function pinRelease(remote: RemoteDescriptor, retry: boolean): Promise<void> {
  const key = releaseKey(remote);
  const current = pinning.get(remote.name);
  if (!retry && current?.key === key) return current.done;
  verified.delete(remote.name);
  const warm = warming.get(remote.name);
  warming.delete(remote.name);
  const check = () => verifyRelease(remote, { reload: retry, preload: fetchAhead });
  // A warm check that failed proves nothing (the store may have been down a moment ago): check again.
  const checking = !retry && warm?.key === key ? warm.release.then((checked) => checked ?? check()) : check();
  const pin = { key, done: Promise.resolve() };
  pin.done = checking.then(async (release) => {
    if (retry) await refetchIntoCache([release.entryUrl, ...release.assets]);
    if (pinning.get(remote.name) !== pin) return; // superseded by a newer list or a Retry
    verified.set(remote.name, release);
    trustRelease(remote.name, release.entryUrl, release.assets);
    // force: the runtime forgets an earlier release of this remote and a cached failed download, so Retry
    // really loads again.
    registerRemotes(
      [{ name: remote.name, entry: release.entryUrl, type: 'global', entryGlobalName: release.name }],
      { force: true },
    );
  });
  pinning.set(remote.name, pin);
  pin.done.catch(() => {
    if (pinning.get(remote.name) === pin) pinning.delete(remote.name);
  });
  return pin.done;
}

/**
 * Starts loading a remote's Feature before its slot asks for it (the remote a page opens at, as soon as the
 * registry lists it): its release is verified, then its entry and Feature module load as {@link loadFeature}
 * would load them, while the shell renders its route; the slot's {@link loadFeature} then takes that load.
 * Failures are the slot's to report.
 */
export function preloadFeature(remote: RemoteDescriptor): void {
  // Already loading ahead (the early list started it, and the signed-in shell names it again).
  if (ahead.get(remote.name)?.key === releaseKey(remote)) return;
  const module = loadVerified(remote, false);
  module.catch(() => undefined);
  ahead.set(remote.name, { key: releaseKey(remote), module });
}

/**
 * Starts fetching a file the release will load, never running it. A file whose SRI hash is known (the entry, and
 * the files its verified manifest pins) is preloaded: a `<link rel=preload>` with that hash and CORS is the very
 * request the script or style sheet that loads it will make, so that element takes it from the page's memory
 * instead of reading the HTTP cache again. Other files are fetched into the HTTP cache ({@link fetchIntoCache}).
 */
function fetchAhead(url: string, integrity?: string): void {
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
}

/** The preloads still loading that no element of the shell's has asked for yet, by file and hash. */
const unclaimed = new Map<string, HTMLLinkElement>();
const fileKey = (url: string, integrity: string) => `${integrity} ${url}`;

/** Notes that an element of the shell's asks for the file now: it takes the file's preload, if there is one. */
function claimPreload(url: string, integrity: string): void {
  unclaimed.delete(fileKey(url, integrity));
  untrusted.delete(fileKey(url, integrity));
}

/** Failed preloads of scripts no element could take yet, their URLs not being trusted then (takeFailedPreload). */
const untrusted = new Map<string, PinnedFile>();

/**
 * Takes a preload that failed (a file missing, unreachable or not matching its hash) with an element of its own
 * that makes exactly that request: the browser hands a failed preload to the next element asking for the file,
 * which would otherwise be the loader's, and again Retry's after the store was repaired. The element is put in
 * a shadow root, where a remote's runtime looking through the document for a style sheet or script already
 * loading cannot take it for its own (it would count a style sheet without its loading mark as loaded), and is
 * removed once settled.
 */
function takeFailedPreload(url: string, integrity: string): void {
  // A script the loader's Trusted Types policy does not pass yet (a release the registry's current list does not
  // name yet: a remembered one) is taken once the fresh list names it (registerFeatureRemotes).
  if (!isStyleSheet(url) && !isTrustedScriptUrl(url)) {
    untrusted.set(fileKey(url, integrity), { url, integrity });
    return;
  }
  const element = isStyleSheet(url) ? document.createElement('link') : document.createElement('script');
  if (element instanceof HTMLLinkElement) {
    element.rel = 'stylesheet';
    element.href = url;
  } else {
    element.src = loaderScriptUrl(url);
  }
  element.integrity = integrity;
  element.crossOrigin = 'anonymous';
  element.onload = element.onerror = () => element.remove();
  takerRoot().append(element);
}

let takers: ShadowRoot | undefined;
function takerRoot(): ShadowRoot {
  if (takers === undefined || !takers.host.isConnected) {
    const host = document.createElement('div');
    host.hidden = true;
    host.dataset['atriumPreloadTakers'] = '';
    document.body.append(host);
    takers = host.attachShadow({ mode: 'closed' });
  }
  return takers;
}

const isStyleSheet = (url: string) => new URL(url).pathname.endsWith('.css');

/**
 * Fetches a release file into the HTTP cache, where the script or style sheet that needs it will find it
 * (`reload`: again, past the cached copy). Fetched, never run: the scripts still load only with their hashes.
 */
const fetchIntoCache = (url: string, cache: RequestCache = 'default') =>
  // Same request mode and credentials as a crossorigin="anonymous" script, so the same cache entry.
  fetch(url, { mode: 'cors', credentials: 'same-origin', cache })
    .then((response) => response.arrayBuffer())
    .catch(() => undefined); // the script load that follows reports what is wrong

/**
 * Fetches files again into the HTTP cache. A browser keeps a file it refused (wrong hash) in its cache, and a
 * release's files are cached as immutable for a year, so without this Retry would meet the refused copy again
 * even after the store was repaired.
 */
async function refetchIntoCache(urls: readonly string[]): Promise<void> {
  await Promise.all(urls.map((url) => fetchIntoCache(url, 'reload')));
}

/**
 * Installs {@link releasePinningPlugin} and forgets remotes the registry no longer lists, so nothing but the
 * listed releases can be loaded. Each listed remote is verified and registered with the runtime when its slot
 * first loads it ({@link loadFeature}).
 */
export function registerFeatureRemotes(remotes: readonly RemoteDescriptor[]): void {
  registerPlugins([releasePinningPlugin]);
  trustListedEntries(remotes, REMOTE_ENTRY_FILE);
  for (const [key, { url, integrity }] of untrusted) {
    if (!isTrustedScriptUrl(url)) continue;
    untrusted.delete(key);
    takeFailedPreload(url, integrity);
  }
  const listed = new Set(remotes.map(({ name }) => name));
  for (const name of [...verified.keys(), ...pinning.keys(), ...ahead.keys(), ...warming.keys()]) {
    if (listed.has(name)) continue;
    verified.delete(name);
    pinning.delete(name);
    ahead.delete(name);
    warming.delete(name);
  }
}

/**
 * Takes the registry's fresh list: only its releases may load from now on ({@link registerFeatureRemotes}), and
 * the remote whose route `pathname` is in starts loading ({@link preloadFeature}). Called as soon as the list is
 * read, by whichever part of the shell read it first (../app/early-remotes.ts, ../app/signed-in-shell.tsx).
 */
export function adoptRemotes(remotes: readonly RemoteDescriptor[], pathname: string): void {
  registerFeatureRemotes(remotes);
  const routed = routedRemote(remotes, pathname);
  if (routed) preloadFeature(routed);
}

export interface LoadOptions {
  readonly retry: boolean;
  /** The slot gives up (and offers Retry) after this long; the download itself cannot be cancelled. */
  readonly timeoutMs: number;
}

export type FeatureLoader = (remote: RemoteDescriptor, options: LoadOptions) => Promise<RemoteModule>;

/**
 * Loads a remote's Feature: verifies its release against the registry ({@link verifyRelease}), lets the
 * runtime load the verified entry, and turns every failure into a {@link RemoteLoadError}.
 */
export const loadFeature: FeatureLoader = async (remote, { retry, timeoutMs }) => {
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
};

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
