// @vitest-environment happy-dom
import type { RemoteDescriptor } from '@atrium/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RemoteLoadError, RemoteRefusedError } from '../remote-load-error';
import { TEST_STORE as STORE, testRemote } from '../testing/test-remote';
import type { VerifiedRelease } from './release-manifest';

const runtime = vi.hoisted(() => ({
  loadRemote: vi.fn(),
  registerPlugins: vi.fn(),
  registerRemotes: vi.fn(),
}));
vi.mock('@module-federation/enhanced/runtime', () => runtime);
const manifests = vi.hoisted(() => ({ verifyRelease: vi.fn() }));
vi.mock('./release-manifest', () => manifests);

const { createRemoteLoader } = await import('./remote-loader');
const { createTrustedScriptUrls } = await import('./trusted-script-urls');

// One loader for the file, as one per page (the runtime keeps the first plugin of a name); each test ends with a
// list that names nothing, which forgets everything the loader held.
const loader = createRemoteLoader(createTrustedScriptUrls());
const { plugin, loadFeature } = loader;
const warmRelease = (remote: RemoteDescriptor) => loader.warm(remote);
/** The registry's list, adopted by a page that opens at no remote's route. */
const registerFeatureRemotes = (remotes: readonly RemoteDescriptor[]) => loader.adopt(remotes);
/** The list naming `remote`, adopted by a page that opens at its route: it starts loading ahead. */
const preloadFeature = (remote: RemoteDescriptor) => loader.adopt([remote], { ahead: remote });

const release = (remote: RemoteDescriptor): VerifiedRelease => ({
  name: remote.name,
  entryUrl: remote.entry.replace('mf-manifest.json', 'remoteEntry.js'),
  integrity: remote.integrity,
  assets: [remote.entry.replace('mf-manifest.json', 'feature.123.js')],
  pinned: [],
});
const signed = testRemote('signed');
const signedEntry = `${STORE}/signed/1.0.0/remoteEntry.js`;
const Feature = () => null;
const options = { retry: false, timeoutMs: 2_000 };

/** How the runtime describes a remote to its hooks once it is registered. */
const remoteInfo = (overrides: Record<string, unknown> = {}) =>
  ({
    name: 'signed',
    entry: signedEntry,
    type: 'global',
    entryGlobalName: 'signed',
    shareScope: 'default',
    ...overrides,
  }) as never;

/** Scripts the loader adds to the page, kept out of the document so nothing is fetched. */
let scripts: HTMLScriptElement[];
beforeEach(() => {
  scripts = [];
  vi.spyOn(document.head, 'append').mockImplementation((...nodes) => {
    scripts.push(...(nodes as HTMLScriptElement[]));
  });
  manifests.verifyRelease.mockImplementation((remote: RemoteDescriptor) => Promise.resolve(release(remote)));
});
afterEach(() => {
  // Preloads a test left loading are done: none is shared with the next test's.
  for (const element of scripts) {
    if (element instanceof HTMLLinkElement && element.rel === 'preload')
      element.dispatchEvent(new Event('load'));
  }
  vi.useRealTimers();
  vi.resetAllMocks();
  vi.restoreAllMocks();
  // Every test starts from a registry that lists nothing, so no pin leaks between tests.
  registerFeatureRemotes([]);
});

/** Makes `remote` verified, as a slot's first load does. */
async function verify(remote: RemoteDescriptor) {
  registerFeatureRemotes([remote]);
  runtime.loadRemote.mockResolvedValueOnce({ Feature });
  await loadFeature(remote, options);
}

/** Loads `signed` through a check that has `files` ([url, hash?]) fetched ahead, as verifyRelease does. */
async function loadFetchingAhead(...files: readonly (readonly [string, string?])[]) {
  registerFeatureRemotes([signed]);
  runtime.loadRemote.mockResolvedValue({ Feature });
  manifests.verifyRelease.mockImplementation(
    (remote: RemoteDescriptor, { preload }: { preload: (url: string, integrity?: string) => void }) => {
      for (const [url, integrity] of files) preload(url, integrity);
      return Promise.resolve(release(remote));
    },
  );
  await loadFeature(signed, options);
}

describe('loadFeature', () => {
  it('verifies the release, registers only its verified remoteEntry.js as a classic script, then loads Feature', async () => {
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({ Feature });

    await expect(loadFeature(signed, options)).resolves.toEqual({ Feature });
    expect(manifests.verifyRelease).toHaveBeenCalledWith(signed, expect.objectContaining({ reload: false }));
    expect(runtime.registerRemotes).toHaveBeenCalledWith(
      [{ name: 'signed', entry: signedEntry, type: 'global', entryGlobalName: 'signed' }],
      { force: true },
    );
    expect(runtime.loadRemote).toHaveBeenCalledWith('signed/Feature');
  });

  it('gives the runtime nothing when the release is refused, and the slot gets the reason', async () => {
    registerFeatureRemotes([signed]);
    const refused = new RemoteLoadError(
      signed,
      'refused',
      'Signed was not loaded: its manifest is not the one…',
    );
    manifests.verifyRelease.mockRejectedValue(refused);

    await expect(loadFeature(signed, options)).rejects.toBe(refused);
    expect(runtime.registerRemotes).not.toHaveBeenCalled();
    expect(runtime.loadRemote).not.toHaveBeenCalled();
    await expect(plugin.loadEntry!({ remoteInfo: remoteInfo() } as never)).rejects.toBeInstanceOf(
      RemoteRefusedError,
    );
  });

  it('verifies a release once for every slot that shows it, and again on Retry, bypassing the cache', async () => {
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({ Feature });
    const fetching = vi
      .spyOn(globalThis, 'fetch')
      .mockImplementation(() => Promise.resolve(new Response('')));

    await loadFeature(signed, options);
    await loadFeature(signed, options);
    expect(manifests.verifyRelease).toHaveBeenCalledTimes(1);
    expect(runtime.registerRemotes).toHaveBeenCalledTimes(1);
    expect(fetching).not.toHaveBeenCalled();

    await loadFeature(signed, { ...options, retry: true });
    expect(manifests.verifyRelease).toHaveBeenLastCalledWith(
      signed,
      expect.objectContaining({ reload: true }),
    );
    expect(runtime.registerRemotes).toHaveBeenCalledTimes(2);
    // A refused copy of the entry or a chunk in the HTTP cache is replaced before the scripts load again.
    const reload = { mode: 'cors', credentials: 'same-origin', cache: 'reload' };
    expect(fetching.mock.calls).toEqual([
      [signedEntry, reload],
      [`${STORE}/signed/1.0.0/feature.123.js`, reload],
    ]);
  });

  it('has the files verifyRelease names fetched ahead, as the scripts and style sheets that use them will ask, and runs none of them', async () => {
    const fetching = vi
      .spyOn(globalThis, 'fetch')
      .mockImplementation(() => Promise.resolve(new Response('')));
    await loadFetchingAhead(
      [signedEntry, signed.integrity],
      [`${STORE}/signed/1.0.0/feature.123.css`, 'sha384-sheet'],
      [`${STORE}/signed/1.0.0/feature.789.js`],
    );
    // Files with a known hash are preloaded with it: the very request of the element that loads them later.
    const preloads = scripts as unknown as HTMLLinkElement[];
    expect(preloads.map((link) => [link.rel, link.as, link.href, link.integrity, link.crossOrigin])).toEqual([
      ['preload', 'script', signedEntry, signed.integrity, 'anonymous'],
      ['preload', 'style', `${STORE}/signed/1.0.0/feature.123.css`, 'sha384-sheet', 'anonymous'],
    ]);
    // A file without one goes into the HTTP cache, as a crossorigin="anonymous" element will ask for it.
    expect(fetching.mock.calls).toEqual([
      [
        `${STORE}/signed/1.0.0/feature.789.js`,
        { mode: 'cors', credentials: 'same-origin', cache: 'default' },
      ],
    ]);
  });

  it('takes a failed preload with an element of its own, so that neither the loader nor Retry is handed its failure', async () => {
    await loadFetchingAhead([signedEntry, signed.integrity]);
    const [preload] = scripts as unknown as [HTMLLinkElement];
    const removePreload = vi.spyOn(preload, 'remove');
    const attached: Element[] = [];
    vi.spyOn(ShadowRoot.prototype, 'append').mockImplementation((...nodes) => {
      attached.push(...(nodes as Element[]));
    });

    // The store has no such file (yet), or it does not match its hash.
    preload.dispatchEvent(new Event('error'));
    expect(removePreload).toHaveBeenCalled();
    // Taken in a shadow root, out of the way of a remote runtime's search of the document.
    expect(scripts).toHaveLength(1);
    expect(document.querySelector('script')).toBeNull();
    const host = document.querySelector<HTMLElement>('[data-atrium-preload-takers]')!;
    expect(host.hidden).toBe(true);
    const taker = attached.at(-1)! as HTMLScriptElement;
    expect([taker.tagName, taker.src, taker.integrity, taker.crossOrigin]).toEqual([
      'SCRIPT',
      signedEntry,
      signed.integrity,
      'anonymous',
    ]);
    const removeTaker = vi.spyOn(taker, 'remove');
    taker.dispatchEvent(new Event('error'));
    expect(removeTaker).toHaveBeenCalled();
  });

  it('takes a failed preload of a remembered release only once the fresh list names it (Trusted Types)', () => {
    manifests.verifyRelease.mockImplementation(
      (remote: RemoteDescriptor, { preload }: { preload: (url: string, integrity?: string) => void }) => {
        preload(signedEntry, remote.integrity);
        return Promise.resolve(release(remote));
      },
    );
    const attached: Element[] = [];
    vi.spyOn(ShadowRoot.prototype, 'append').mockImplementation((...nodes) => {
      attached.push(...(nodes as Element[]));
    });
    warmRelease(signed);
    const [preload] = scripts as unknown as [HTMLLinkElement];
    preload.dispatchEvent(new Event('error'));
    // The list of the last page is no authority: its entry is no trusted script URL, so no element asks for it.
    expect(attached).toEqual([]);

    registerFeatureRemotes([signed]);
    expect(attached.map((element) => (element as HTMLScriptElement).src)).toEqual([signedEntry]);
  });

  it('preloads a file once however many checks name it, so no two preloads share a download', async () => {
    await loadFetchingAhead([signedEntry, signed.integrity], [signedEntry, signed.integrity]);
    expect(scripts).toHaveLength(1);
  });

  it('leaves a failed preload that the loader already asked for to the loader, which reports it', async () => {
    await loadFetchingAhead([signedEntry, signed.integrity]);
    const taken = vi.spyOn(ShadowRoot.prototype, 'append').mockImplementation(() => undefined);
    const [preload] = scripts as unknown as [HTMLLinkElement];

    // The loader's script asks for the entry while its preload is still on its way, and takes it.
    const loading = plugin.loadEntry!({ remoteInfo: remoteInfo() } as never);
    await vi.waitFor(() => expect(scripts).toHaveLength(2));
    preload.dispatchEvent(new Event('error'));
    scripts[1]!.dispatchEvent(new Event('error'));

    await expect(loading).rejects.toThrow(`${signedEntry} did not load`);
    // No element of its own: it would ask again itself and could run the file outside the loader.
    expect(taken).not.toHaveBeenCalled();
  });

  it('refuses a release the registry pulled, with why, on every later load and Retry, and keeps its other versions', async () => {
    const listed = testRemote('pulled');
    registerFeatureRemotes([listed]);
    runtime.loadRemote.mockResolvedValue({ Feature });
    await expect(loadFeature(listed, options)).resolves.toEqual({ Feature });

    const pulled = { ...listed, pulled: 'Pulled 1.0.0 was withdrawn: leaks data.' };
    for (const retry of [false, true]) {
      const refusal = loadFeature(pulled, { ...options, retry });
      await expect(refusal).rejects.toBeInstanceOf(RemoteLoadError);
      await expect(refusal).rejects.toMatchObject({
        reason: 'withdrawn',
        message: 'Pulled 1.0.0 was withdrawn: leaks data.',
      });
    }
    expect(runtime.loadRemote).toHaveBeenCalledTimes(1);
    const next = { ...listed, version: '1.0.1' };
    registerFeatureRemotes([next]);
    await expect(loadFeature(next, options)).resolves.toEqual({ Feature });
  });

  it('starts loading the release a page opens at before its slot asks, and the slot takes that load once', async () => {
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({ Feature });

    preloadFeature(signed);
    expect(manifests.verifyRelease).toHaveBeenCalledTimes(1);
    await vi.waitFor(() => expect(runtime.loadRemote).toHaveBeenCalledWith('signed/Feature'));
    await expect(loadFeature(signed, options)).resolves.toEqual({ Feature });
    expect(manifests.verifyRelease).toHaveBeenCalledTimes(1);
    expect(runtime.loadRemote).toHaveBeenCalledTimes(1);
    // A second slot (or StrictMode's second effect) loads it the usual way, from the verified release.
    await expect(loadFeature(signed, options)).resolves.toEqual({ Feature });
    expect(manifests.verifyRelease).toHaveBeenCalledTimes(1);
    expect(runtime.loadRemote).toHaveBeenCalledTimes(2);
  });

  it('starts one early load of a release however many times the list names it before its slot asks', async () => {
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({ Feature });

    // The early list, then the signed-in shell with the same list.
    preloadFeature(signed);
    preloadFeature(signed);
    await expect(loadFeature(signed, options)).resolves.toEqual({ Feature });
    expect(manifests.verifyRelease).toHaveBeenCalledTimes(1);
    expect(runtime.loadRemote).toHaveBeenCalledTimes(1);
  });

  it('does not hand a slot the early load of a release the registry no longer lists as current', async () => {
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({ Feature });
    preloadFeature(signed);
    await vi.waitFor(() => expect(runtime.loadRemote).toHaveBeenCalledTimes(1));

    const next = { ...signed, version: '1.1.0', entry: signed.entry.replace('1.0.0', '1.1.0') };
    registerFeatureRemotes([next]);
    await loadFeature(next, options);
    expect(manifests.verifyRelease).toHaveBeenLastCalledWith(
      next,
      expect.objectContaining({ reload: false }),
    );
    expect(runtime.loadRemote).toHaveBeenCalledTimes(2);
  });

  it('leaves the failure of a release verified ahead to its slot', async () => {
    registerFeatureRemotes([signed]);
    const refused = new RemoteLoadError(signed, 'refused', 'Signed was not loaded: …');
    manifests.verifyRelease.mockRejectedValue(refused);

    preloadFeature(signed);
    await expect(loadFeature(signed, options)).rejects.toBe(refused);
    expect(runtime.loadRemote).not.toHaveBeenCalled();
  });

  it("uses the check started from the last page's list when the fresh list names that very release", async () => {
    warmRelease(signed);
    expect(manifests.verifyRelease).toHaveBeenCalledTimes(1);
    // Nothing of it may run before the fresh list: the runtime does not know the remote yet.
    expect(runtime.registerRemotes).not.toHaveBeenCalled();
    expect(() => plugin.afterMatchRemote!({ remoteInfo: remoteInfo() } as never)).toThrow(RemoteRefusedError);

    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({ Feature });
    await expect(loadFeature(signed, options)).resolves.toEqual({ Feature });

    expect(manifests.verifyRelease).toHaveBeenCalledTimes(1);
    expect(runtime.registerRemotes).toHaveBeenCalledWith(
      [{ name: 'signed', entry: signedEntry, type: 'global', entryGlobalName: 'signed' }],
      { force: true },
    );
  });

  it('checks the release the fresh list names when it is not the one remembered (new hash, new version)', async () => {
    warmRelease(signed);
    const rehashed = { ...signed, integrity: `sha384-${'c'.repeat(64)}` };
    registerFeatureRemotes([rehashed]);
    runtime.loadRemote.mockResolvedValue({ Feature });

    await loadFeature(rehashed, options);

    expect(manifests.verifyRelease).toHaveBeenCalledTimes(2);
    expect(manifests.verifyRelease).toHaveBeenLastCalledWith(
      rehashed,
      expect.objectContaining({ reload: false }),
    );
  });

  it('forgets a remembered release the fresh list no longer names', async () => {
    warmRelease(signed);
    registerFeatureRemotes([]);
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({ Feature });

    await loadFeature(signed, options);

    expect(manifests.verifyRelease).toHaveBeenCalledTimes(2);
  });

  it('checks again when the check started from the last list failed', async () => {
    manifests.verifyRelease.mockRejectedValueOnce(new RemoteLoadError(signed, 'download', 'store down'));
    warmRelease(signed);
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({ Feature });

    await expect(loadFeature(signed, options)).resolves.toEqual({ Feature });
    expect(manifests.verifyRelease).toHaveBeenCalledTimes(2);
  });

  it('verifies again when the registry lists another release of the remote', async () => {
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({ Feature });
    await loadFeature(signed, options);

    const next = { ...signed, version: '1.0.1', entry: `${STORE}/signed/1.0.1/mf-manifest.json` };
    registerFeatureRemotes([next]);
    await loadFeature(next, options);
    expect(runtime.registerRemotes).toHaveBeenLastCalledWith(
      [
        {
          name: 'signed',
          entry: `${STORE}/signed/1.0.1/remoteEntry.js`,
          type: 'global',
          entryGlobalName: 'signed',
        },
      ],
      { force: true },
    );
    expect(() => plugin.afterMatchRemote!({ remoteInfo: remoteInfo() } as never)).toThrow(
      `${signedEntry} is not its verified entry ${STORE}/signed/1.0.1/remoteEntry.js`,
    );
  });

  it('gives up with a RemoteLoadError naming the timeout when the remote never answers', async () => {
    vi.useFakeTimers();
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockReturnValue(new Promise(() => undefined));

    const loading = loadFeature(signed, options);
    const outcome = expect(loading).rejects.toThrow('Signed did not load within 2 s');
    await vi.advanceTimersByTimeAsync(2_000);
    await outcome;
    await expect(loading).rejects.toMatchObject({ name: 'RemoteLoadError', reason: 'timeout' });
  });

  it("turns the plugin's refusal into a readable sentence in the slot", async () => {
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockRejectedValue(
      new RemoteRefusedError('signed', 'an entry of type "module" is not a classic script'),
    );

    await expect(loadFeature(signed, options)).rejects.toMatchObject({
      reason: 'refused',
      message: 'Signed was not loaded: an entry of type "module" is not a classic script.',
    });
  });

  it('names the file when the remote entry or one of its chunks is refused by the browser', async () => {
    registerFeatureRemotes([signed]);
    const chunk = Object.assign(new Error('Loading chunk 1 failed.'), {
      name: 'ChunkLoadError',
      request: `${STORE}/signed/1.0.0/feature.123.js`,
    });
    runtime.loadRemote.mockRejectedValue(chunk);

    await expect(loadFeature(signed, options)).rejects.toThrow(
      `Signed could not be loaded from ${STORE}/signed/1.0.0/feature.123.js: the file is unreachable or is ` +
        'not the one its release recorded.',
    );
  });

  it('wraps any other failure in a RemoteLoadError that names the release', async () => {
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockRejectedValue(new Error('Failed to fetch'));

    await expect(loadFeature(signed, options)).rejects.toThrow(
      `Signed could not be downloaded from ${signed.entry}.`,
    );
  });

  it('refuses a module without a Feature component', async () => {
    registerFeatureRemotes([signed]);
    runtime.loadRemote.mockResolvedValue({});

    await expect(loadFeature(signed, options)).rejects.toThrow('Signed does not export a Feature component.');
  });
});

describe('releasePinningPlugin', () => {
  it('is registered with the runtime when the registry lists remotes', () => {
    registerFeatureRemotes([signed]);

    expect(runtime.registerPlugins).toHaveBeenCalledWith([plugin]);
    // Nothing is registered with the runtime before its release is verified.
    expect(runtime.registerRemotes).not.toHaveBeenCalled();
  });

  it('lets exactly the verified entry through', async () => {
    await verify(signed);

    expect(plugin.afterMatchRemote!({ remoteInfo: remoteInfo() } as never)).toBeUndefined();
  });

  it.each([
    [
      'a remote that was never verified',
      { name: 'stranger', entryGlobalName: 'stranger' },
      'no release of it has been checked against the registry',
    ],
    [
      'its manifest, which the runtime would fetch and follow',
      { entry: signed.entry },
      `${signed.entry} is not its verified entry ${signedEntry}`,
    ],
    [
      'an entry on another origin',
      { entry: 'http://evil.test/remoteEntry.js' },
      `http://evil.test/remoteEntry.js is not its verified entry`,
    ],
    ['an ES module entry', { type: 'module' }, 'an entry of type "module" is not a classic script'],
    ['an esm entry', { type: 'esm' }, 'an entry of type "esm" is not a classic script'],
    ['another global', { entryGlobalName: 'admin' }, 'its container global "admin" is not its name'],
  ])('refuses %s before the runtime resolves or loads anything', async (_case, overrides, reason) => {
    await verify(signed);
    const info = remoteInfo(overrides);

    expect(() => plugin.afterMatchRemote!({ remoteInfo: info } as never)).toThrow(reason);
    await expect(plugin.loadEntry!({ remoteInfo: info } as never)).rejects.toThrow(reason);
    expect(scripts).toEqual([]);
  });

  it('refuses every remote once the registry no longer lists it', async () => {
    await verify(signed);
    registerFeatureRemotes([]);

    await expect(plugin.loadEntry!({ remoteInfo: remoteInfo() } as never)).rejects.toThrow(
      'Remote "signed" was refused: no release of it has been checked against the registry.',
    );
  });

  it("loads the verified remoteEntry.js as a classic script with the registry's hash and CORS", async () => {
    await verify(signed);
    const container = { init: vi.fn(), get: vi.fn() };

    const loading = plugin.loadEntry!({ remoteInfo: remoteInfo() } as never);
    await vi.waitFor(() => expect(scripts).toHaveLength(1));
    const [script] = scripts;
    expect(script!.src).toBe(signedEntry);
    expect(script!.integrity).toBe(signed.integrity);
    expect(script!.crossOrigin).toBe('anonymous');
    expect(script!.type).toBe('');
    vi.stubGlobal('signed', container);
    script!.dispatchEvent(new Event('load'));
    await expect(loading).resolves.toBe(container);
    vi.unstubAllGlobals();
  });

  it('fails the load when the browser refuses the script (wrong hash, missing, unreachable)', async () => {
    await verify(signed);

    const loading = plugin.loadEntry!({ remoteInfo: remoteInfo() } as never);
    await vi.waitFor(() => expect(scripts).toHaveLength(1));
    scripts[0]!.dispatchEvent(new Event('error'));
    await expect(loading).rejects.toThrow(`${signedEntry} did not load`);
  });

  it('fails the load when the script defines no container', async () => {
    await verify(signed);

    const loading = plugin.loadEntry!({ remoteInfo: remoteInfo() } as never);
    await vi.waitFor(() => expect(scripts).toHaveLength(1));
    scripts[0]!.dispatchEvent(new Event('load'));
    await expect(loading).rejects.toThrow(`${signedEntry} defines no container "signed"`);
  });

  describe("with the Feature's files pinned by the verified manifest", () => {
    const chunk = { url: `${STORE}/signed/1.0.0/feature.123.js`, integrity: 'sha384-chunk' };
    const sheet = { url: `${STORE}/signed/1.0.0/feature.456.css`, integrity: 'sha384-sheet' };
    const container = { init: vi.fn(), get: vi.fn() };
    beforeEach(async () => {
      manifests.verifyRelease.mockImplementation((remote: RemoteDescriptor) =>
        Promise.resolve({ ...release(remote), pinned: [chunk, sheet] }),
      );
      await verify(signed);
    });
    afterEach(() => {
      vi.unstubAllGlobals();
    });
    /** The elements a load added, once it added all three. */
    async function added() {
      await vi.waitFor(() => expect(scripts).toHaveLength(3));
      const [entry, chunkScript, link] = scripts as [HTMLScriptElement, HTMLScriptElement, HTMLLinkElement];
      return { entry, chunkScript, link };
    }
    const settle = (element: Element, type: 'load' | 'error') => element.dispatchEvent(new Event(type));

    it('loads them alongside the entry, each with its hash, and resolves once none is loading', async () => {
      let resolved = false;
      const loading = Promise.resolve(plugin.loadEntry!({ remoteInfo: remoteInfo() } as never)).then(
        (value) => {
          resolved = true;
          return value;
        },
      );
      const { entry, chunkScript, link } = await added();
      expect(entry.src).toBe(signedEntry);
      expect([chunkScript.src, chunkScript.integrity, chunkScript.crossOrigin]).toEqual([
        chunk.url,
        chunk.integrity,
        'anonymous',
      ]);
      expect([link.rel, link.href, link.integrity, link.crossOrigin]).toEqual([
        'stylesheet',
        sheet.url,
        sheet.integrity,
        'anonymous',
      ]);
      vi.stubGlobal('signed', container);
      settle(entry, 'load');
      settle(chunkScript, 'load');
      await Promise.resolve();
      expect(resolved).toBe(false); // the style sheet is still loading
      const removeSheet = vi.spyOn(link, 'remove');
      settle(link, 'load');
      await expect(loading).resolves.toBe(container);
      // The style sheet stays where the remote's runtime finds it instead of asking for it again.
      expect(removeSheet).not.toHaveBeenCalled();
    });

    it('takes away the style sheet of a release whose entry the browser refused', async () => {
      const loading = plugin.loadEntry!({ remoteInfo: remoteInfo() } as never);
      const { entry, chunkScript, link } = await added();
      const removeSheet = vi.spyOn(link, 'remove');
      settle(entry, 'error');
      settle(chunkScript, 'load');
      settle(link, 'load');

      await expect(loading).rejects.toThrow(`${signedEntry} did not load`);
      expect(removeSheet).toHaveBeenCalled();
    });

    it('never takes the container an earlier release defined for an entry that stopped short of defining its own', async () => {
      vi.stubGlobal('signed', { init: vi.fn(), get: vi.fn() });

      const loading = plugin.loadEntry!({ remoteInfo: remoteInfo() } as never);
      for (const element of Object.values(await added())) settle(element, 'load');
      await expect(loading).rejects.toThrow(`${signedEntry} defines no container "signed"`);
    });

    it('leaves a pinned file the browser refused to the runtime, which asks for it again with the hash the entry holds', async () => {
      const loading = plugin.loadEntry!({ remoteInfo: remoteInfo() } as never);
      const { entry, chunkScript, link } = await added();
      vi.stubGlobal('signed', container);
      settle(chunkScript, 'error');
      settle(link, 'error');
      settle(entry, 'load');

      await expect(loading).resolves.toBe(container);
    });
  });

  it('refuses to let the runtime fetch a manifest or create scripts and links itself', async () => {
    await verify(signed);
    const info = remoteInfo();

    await expect(plugin.fetch!(signed.entry, {}, info)).rejects.toThrow(
      `Remote "signed" was refused: the federation runtime may not fetch ${signed.entry} itself.`,
    );
    expect(() => plugin.createScript!({ url: signedEntry, remoteInfo: info })).toThrow(RemoteRefusedError);
    expect(() => plugin.createScript!({ url: 'http://evil.test/x.js' })).toThrow(RemoteRefusedError);
    expect(() => plugin.createLink!({ url: `${STORE}/signed/1.0.0/x.css`, remoteInfo: info })).toThrow(
      RemoteRefusedError,
    );
  });

  it("turns off the runtime's preloading, which would load files without their hashes", async () => {
    const preloadOps = [{ nameOrAlias: 'signed', exposes: ['./Feature'] }];

    await plugin.beforePreloadRemote!({ preloadOps } as never);
    expect(preloadOps).toEqual([]);
  });
});
