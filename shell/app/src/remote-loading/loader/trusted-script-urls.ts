/**
 * Trusted Types for script URLs. The shell's Content-Security-Policy requires them
 * (`require-trusted-types-for 'script'`) and allows two policies, both created by {@link TrustedScriptUrls.install}
 * once, before the shell's first chunk loads (the page's entry module installs them first of all), with one rule
 * ({@link TrustedScriptUrls.isTrusted}):
 * - {@link REMOTE_LOADER_POLICY}, private to its object: the loader's own script elements (a release's entry and
 *   the files its verified manifest pins) get their URLs from it ({@link TrustedScriptUrls.loaderScriptUrl}), and
 *   only for trusted files;
 * - `default`: the browser asks it for every plain string a page assigns to a script URL sink (`script.src`,
 *   `new Worker(url)`...). The bundler runtimes do that: the shell's own chunk loader, each remote's (its chunks,
 *   with the hashes its verified entry holds) and a dev server's hot updates. It answers the same rule, and
 *   refuses anything else: the browser then blocks the assignment and reports a Trusted Types violation.
 * No other policy may be created (the CSP names only these two), so a script URL injected into the page (a link
 * to the release store, the API, Keycloak or the mail inbox written into `script.src`) never loads.
 *
 * Trusted: the shell's own chunks (files at the root of its origin, where its build puts them), the entry of each
 * release the registry's current list names (with the registry's hash), the files the verified manifest of a
 * release being loaded lists, and, for a remote a dev override runs, the files of its approved dev server. The
 * remote loader (./remote-loader.ts) is the one that tells it which: it is handed this object when it is created,
 * and nothing else writes to it.
 */

import { REMOTE_LOADER_POLICY } from './remote-loader-policy';

export { REMOTE_LOADER_POLICY };

/** What the browser's `trustedTypes` offers that this module uses (TypeScript's DOM types lack it). */
export interface TrustedTypePolicyFactory {
  createPolicy(
    name: string,
    rules: { createScriptURL(input: string): string | null },
  ): { createScriptURL(input: string): unknown };
}

/** The script URLs the shell may load now, and the Trusted Types policies that answer by them. */
export interface TrustedScriptUrls {
  /** Whether `raw` is a script URL the shell may load now (see the module's comment). */
  isTrusted(raw: string): boolean;
  /**
   * Trusts the entries the registry's current list names (`remoteEntry.js` beside each manifest, which the
   * registry pins by its hash), and forgets everything trusted for remotes the list no longer names.
   */
  trustListedEntries(
    remotes: readonly { readonly name: string; readonly entry: string }[],
    entryFile: string,
  ): void;
  /**
   * Trusts the files of the release of `remote` that the loader verified (its entry and the chunks its verified
   * manifest lists), in place of those of any release of it before.
   */
  trustRelease(remote: string, entry: string, files: readonly string[]): void;
  /**
   * Trusts the files of the dev server a dev override of `remote` runs (its chunks and hot updates, whose names
   * the manifest cannot list): those in `folder`, the folder of the dev server's approved manifest. Forgotten when
   * the registry's list no longer points the remote there ({@link trustListedEntries}).
   */
  trustDevServer(remote: string, folder: string): void;
  /**
   * Creates the two policies, once. Where the browser has no Trusted Types, nothing is created and the loader
   * assigns plain URLs (the CSP's script sources still apply). A policy that cannot be created (a CSP naming other
   * policies) is reported; the browser then refuses the script URLs that would have needed it.
   */
  install(factory?: TrustedTypePolicyFactory): void;
  /**
   * The URL to give a script element of the loader's own: a TrustedScriptURL from {@link REMOTE_LOADER_POLICY}
   * (typed as the string the DOM's types expect), or the URL itself where the browser has no Trusted Types.
   *
   * @throws TypeError when `url` is not trusted ({@link isTrusted}).
   */
  loaderScriptUrl(url: string): string;
}

/** Trusts nothing but the shell's own chunks until the loader says otherwise; no policy until {@link TrustedScriptUrls.install}. */
export function createTrustedScriptUrls(): TrustedScriptUrls {
  /** The trusted files of each remote, by remote name: its listed entry, and those of its verified release. */
  const releaseFiles = new Map<string, { entry?: string; files?: ReadonlySet<string> }>();
  /** The folder of each remote's approved dev server, by remote name (dev overrides). */
  const devServers = new Map<string, string>();
  let loaderPolicy: { createScriptURL(input: string): unknown } | undefined;

  const isTrusted = (raw: string): boolean => {
    if (!URL.canParse(raw, document.baseURI)) return false;
    const url = new URL(raw, document.baseURI);
    if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') return false;
    if (!url.pathname.endsWith('.js')) return false;
    // The shell's build writes its chunks (and the dev server its hot updates) at the root of its origin.
    if (url.origin === window.location.origin && /^\/[\w~-][\w.~-]*$/.test(url.pathname)) return true;
    const { href } = url;
    for (const { entry, files } of releaseFiles.values()) {
      if (href === entry || files?.has(href)) return true;
    }
    for (const folder of devServers.values()) {
      if (href.startsWith(folder) && /^[\w~-][\w.~-]*$/.test(href.slice(folder.length))) return true;
    }
    return false;
  };

  return {
    isTrusted,
    trustListedEntries(remotes, entryFile) {
      const listed = new Map(remotes.map((remote) => [remote.name, remote]));
      for (const name of [...releaseFiles.keys(), ...devServers.keys()]) {
        if (listed.has(name)) continue;
        releaseFiles.delete(name);
        devServers.delete(name);
      }
      for (const [name, remote] of listed) {
        if (!URL.canParse(remote.entry)) continue;
        const entry = new URL(entryFile, remote.entry).href;
        const current = releaseFiles.get(name);
        releaseFiles.set(name, current?.entry === entry ? current : { entry });
        const devServer = devServers.get(name);
        if (devServer !== undefined && !remote.entry.startsWith(devServer)) devServers.delete(name);
      }
    },
    trustRelease(remote, entry, files) {
      releaseFiles.set(remote, { entry, files: new Set(files) });
    },
    trustDevServer(remote, folder) {
      devServers.set(remote, folder);
    },
    install(factory = (globalThis as { trustedTypes?: TrustedTypePolicyFactory }).trustedTypes) {
      if (factory === undefined || loaderPolicy !== undefined) return;
      try {
        loaderPolicy = factory.createPolicy(REMOTE_LOADER_POLICY, {
          createScriptURL(input) {
            if (isTrusted(input)) return input;
            throw new TypeError(`${input} is not a file the registry pinned for a release being loaded`);
          },
        });
        factory.createPolicy('default', {
          createScriptURL: (input) => (isTrusted(input) ? input : null),
        });
      } catch (error) {
        console.error('Trusted Types policies for script URLs could not be created', error);
      }
    },
    loaderScriptUrl(url) {
      if (loaderPolicy !== undefined) return loaderPolicy.createScriptURL(url) as string;
      if (!isTrusted(url)) throw new TypeError(`${url} is not a file the registry pinned`);
      return url;
    },
  };
}
