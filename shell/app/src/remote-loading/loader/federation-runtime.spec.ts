// @vitest-environment happy-dom
import { init, loadRemote, registerRemotes } from '@module-federation/enhanced/runtime';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RemoteDescriptor } from '@atrium/sdk';
import { TEST_STORE as STORE, testRemote } from '../testing/test-remote';
import type { VerifiedRelease } from './release-manifest';

// The real federation runtime (2.9) with the shell's plugin: only the manifest check is replaced, so these
// tests show which of the runtime's own load paths the plugin closes.
const manifests = vi.hoisted(() => ({ verifyRelease: vi.fn() }));
vi.mock('./release-manifest', () => manifests);
const { createRemoteLoader } = await import('./remote-loader');
const { createTrustedScriptUrls } = await import('./trusted-script-urls');
const loader = createRemoteLoader(createTrustedScriptUrls());
const { loadFeature } = loader;
const registerFeatureRemotes = (remotes: readonly RemoteDescriptor[]) => loader.adopt(remotes);

const signed = testRemote('signed');
const verifiedRelease: VerifiedRelease = {
  name: 'signed',
  entryUrl: `${STORE}/signed/1.0.0/remoteEntry.js`,
  integrity: signed.integrity,
  assets: [],
  pinned: [],
};
const options = { retry: false, timeoutMs: 5_000 };

let scripts: HTMLScriptElement[];
let fetching: ReturnType<typeof vi.spyOn>;
beforeAll(() => {
  init({ name: 'shell', remotes: [] });
});
beforeEach(() => {
  scripts = [];
  // Scripts are kept out of the document (nothing is downloaded); each test plays the browser's part.
  vi.spyOn(document.head, 'append').mockImplementation((...nodes) => {
    scripts.push(...(nodes as HTMLScriptElement[]));
  });
  vi.spyOn(document.head, 'appendChild').mockImplementation((node) => {
    scripts.push(node as HTMLScriptElement);
    return node;
  });
  // Nothing here may reach the network; Retry's cache refresh gets an empty answer.
  fetching = vi.spyOn(globalThis, 'fetch').mockImplementation(() => Promise.resolve(new Response('')));
  manifests.verifyRelease.mockResolvedValue(verifiedRelease);
  registerFeatureRemotes([signed]);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  registerFeatureRemotes([]);
});

/** Plays the browser running the verified remoteEntry.js: it defines the container global. */
async function runEntryScript() {
  await vi.waitFor(() => expect(scripts).toHaveLength(1));
  const Feature = () => null;
  vi.stubGlobal('signed', {
    init: () => undefined,
    get: () => Promise.resolve(() => ({ Feature })),
  });
  scripts[0]!.dispatchEvent(new Event('load'));
  return Feature;
}

describe('the federation runtime with the release pinning plugin', () => {
  it("loads a verified release's entry as a classic script with its hash and returns its Feature", async () => {
    const loading = loadFeature(signed, options);
    const Feature = await runEntryScript();

    await expect(loading).resolves.toEqual({ Feature });
    expect(scripts[0]).toMatchObject({
      src: verifiedRelease.entryUrl,
      integrity: signed.integrity,
      crossOrigin: 'anonymous',
    });
    expect(fetching).not.toHaveBeenCalled();
  });

  it('refuses a remote registered with its manifest: the runtime fetches nothing', async () => {
    registerRemotes([{ name: 'stranger', entry: `${STORE}/stranger/1.0.0/mf-manifest.json` }]);

    await expect(loadRemote('stranger/Feature')).rejects.toThrow(
      'Remote "stranger" was refused: no release of it has been checked against the registry.',
    );
    expect(fetching).not.toHaveBeenCalled();
    expect(scripts).toEqual([]);
  });

  it('refuses the verified remote re-registered as an ES module: nothing is imported', async () => {
    const loading = loadFeature(signed, options);
    await runEntryScript();
    await loading;
    scripts.length = 0;
    registerRemotes([{ name: 'signed', entry: `${STORE}/signed/1.0.0/evil.mjs`, type: 'module' }], {
      force: true,
    });

    await expect(loadRemote('signed/Feature')).rejects.toThrow(
      `Remote "signed" was refused: ${STORE}/signed/1.0.0/evil.mjs is not its verified entry`,
    );
    expect(scripts).toEqual([]);
  });

  it('refuses the verified remote re-registered with its manifest, before the runtime fetches it', async () => {
    const loading = loadFeature(signed, options);
    await runEntryScript();
    await loading;
    scripts.length = 0;
    registerRemotes([{ name: 'signed', entry: signed.entry }], { force: true });

    await expect(loadRemote('signed/Feature')).rejects.toThrow(
      `Remote "signed" was refused: ${signed.entry} is not its verified entry`,
    );
    expect(fetching).not.toHaveBeenCalled();
    expect(scripts).toEqual([]);
  });

  it('shows the slot an error and runs nothing when the browser refuses the entry, and Retry loads it', async () => {
    const failing = loadFeature(signed, options);
    await vi.waitFor(() => expect(scripts).toHaveLength(1));
    scripts[0]!.dispatchEvent(new Event('error'));
    await expect(failing).rejects.toThrow(
      `Signed could not be loaded from ${verifiedRelease.entryUrl}: the file is unreachable or is not the ` +
        'one its release recorded.',
    );

    scripts.length = 0;
    const retrying = loadFeature(signed, { ...options, retry: true });
    const Feature = await runEntryScript();
    await expect(retrying).resolves.toEqual({ Feature });
    expect(fetching).toHaveBeenCalledWith(
      verifiedRelease.entryUrl,
      expect.objectContaining({ cache: 'reload' }),
    );
  });
});
