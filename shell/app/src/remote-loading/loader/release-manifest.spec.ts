import { MANIFEST_FILE_HASHES, type RemoteDescriptor } from '@atrium/sdk';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { manifestEntry, matchesIntegrity, verifyRelease } from './release-manifest';
import { RemoteLoadError } from '../remote-load-error';

const STORE = 'http://releases.test';
const MANIFEST_URL = `${STORE}/profile/1.0.0/mf-manifest.json`;

/** A manifest as the remotes' rspack build writes it (see remotes/profile/dist/mf-manifest.json). */
function manifest(remoteEntry: Record<string, unknown> = {}, metaData: Record<string, unknown> = {}) {
  return {
    id: 'profile',
    name: 'profile',
    metaData: {
      name: 'profile',
      type: 'app',
      buildInfo: { buildVersion: '1.0.0', buildName: '@atrium/remote-profile' },
      remoteEntry: { name: 'remoteEntry.js', path: '', type: 'global', ...remoteEntry },
      globalName: 'profile',
      pluginVersion: '2.9.2',
      publicPath: 'auto',
      ...metaData,
    },
    shared: [],
    remotes: [],
    exposes: [
      {
        id: 'profile:Feature',
        name: 'Feature',
        assets: {
          js: { sync: ['__federation_expose_Feature.9a8f8a55.js'], async: ['https://evil.test/x.js'] },
          css: { sync: ['__federation_expose_Feature.e918a174.css'], async: ['../../admin/1.0.0/a.css'] },
        },
        path: './Feature',
      },
    ],
  };
}

const bytesOf = (text: string) => new TextEncoder().encode(text).buffer;
/** SRI sha384 of `text`, for fixtures (matchesIntegrity is checked against published vectors below). */
async function sri(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-384', bytesOf(text)));
  return `sha384-${btoa(String.fromCharCode(...digest))}`;
}

describe('matchesIntegrity', () => {
  // FIPS 180-2 test vectors for "abc", in base64.
  const SHA384_ABC = 'sha384-ywB1P0WjXou1oD1pmsZQBycsMqsO3tFjGotgWkP/W+2AhgcroefMI1i67KE0yCWn';
  const SHA256_ABC = 'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=';

  it('accepts exactly the bytes the SRI hash was computed from', async () => {
    await expect(matchesIntegrity(bytesOf('abc'), SHA384_ABC)).resolves.toBe(true);
    await expect(matchesIntegrity(bytesOf('abc'), SHA256_ABC)).resolves.toBe(true);
    await expect(matchesIntegrity(bytesOf('abc\n'), SHA384_ABC)).resolves.toBe(false);
    await expect(matchesIntegrity(bytesOf('abd'), SHA384_ABC)).resolves.toBe(false);
  });

  it('matches nothing with a missing or malformed hash', async () => {
    const bytes = bytesOf('abc');
    for (const integrity of ['', 'sha384-', 'md5-1B2M2Y8AsgTpgAmY7PhCfg==', `${SHA384_ABC} ${SHA256_ABC}`]) {
      await expect(matchesIntegrity(bytes, integrity)).resolves.toBe(false);
    }
  });
});

describe('manifestEntry', () => {
  const check = (value: unknown) => manifestEntry(value, MANIFEST_URL, 'profile');

  it("names the remoteEntry.js beside the manifest, as the runtime resolves publicPath 'auto'", () => {
    expect(check(manifest())).toEqual({ entryUrl: `${STORE}/profile/1.0.0/remoteEntry.js` });
    expect(check(manifest({ type: 'var', path: './static/js/' }))).toEqual({
      entryUrl: `${STORE}/profile/1.0.0/static/js/remoteEntry.js`,
    });
  });

  it.each(['module', 'esm', 'system', 'commonjs-module', undefined])(
    'refuses an entry of type %s: only classic scripts run',
    (type) => {
      expect(check(manifest({ type }))).toEqual({
        problem: expect.stringContaining('only classic scripts (global or var) are run') as string,
      });
    },
  );

  it.each([
    ['another origin', { name: 'http://evil.test/remoteEntry.js' }],
    ['another origin in the path', { path: 'https://evil.test/x' }],
    ['a protocol-relative URL', { path: '//evil.test' }],
    ['another release of the same remote', { path: '../1.0.1' }],
    ['another remote', { path: '/admin/1.0.0' }],
    ['an encoded parent folder', { path: '%2e%2e/%2E%2E/admin/1.0.0' }],
    ['backslashes', { path: '..\\..\\admin\\1.0.0' }],
    ['an encoded slash a server might decode', { name: '..%2F..%2Fadmin%2F1.0.0%2FremoteEntry.js' }],
    ['a dotfile', { name: '.remoteEntry.js' }],
    ['a query', { name: 'remoteEntry.js?v=2' }],
    ['a file that is not a script', { name: 'remoteEntry.json' }],
  ])('refuses an entry outside the release folder: %s', (_case, remoteEntry) => {
    expect(check(manifest(remoteEntry))).toEqual({
      problem: expect.stringContaining('is outside the release folder') as string,
    });
  });

  it('refuses a manifest that takes its files from elsewhere or names another container', () => {
    expect(check(manifest({}, { publicPath: 'https://evil.test/' }))).toHaveProperty('problem');
    expect(check(manifest({}, { getPublicPath: 'return "https://evil.test/"' }))).toHaveProperty('problem');
    expect(check(manifest({}, { globalName: 'admin' }))).toEqual({
      problem: 'its container global is "admin", not "profile"',
    });
  });

  it('refuses what is not a federation manifest', () => {
    for (const value of [null, [], 'x', {}, { metaData: {} }, manifest({ name: 42 })]) {
      expect(check(value)).toHaveProperty('problem');
    }
  });
});

describe('verifyRelease', () => {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());

  const genuine = JSON.stringify(manifest(), null, 2);
  let remote: RemoteDescriptor;
  beforeAll(async () => {
    remote = {
      name: 'profile',
      title: 'Profile',
      path: '/profile',
      navOrder: 10,
      version: '1.0.0',
      entry: MANIFEST_URL,
      integrity: await sri('var profile = {};'),
      manifestIntegrity: await sri(genuine),
      requiredRoles: [],
    };
  });
  /** Serves `body` as the manifest and records each request. */
  function serve(body: string, status = 200) {
    const requests: Request[] = [];
    server.use(
      http.get(MANIFEST_URL, ({ request }) => {
        requests.push(request);
        return new HttpResponse(body, { status, headers: { 'Content-Type': 'application/json' } });
      }),
    );
    return requests;
  }

  it("returns the manifest's entry with the registry's hash of it when the manifest is the one published", async () => {
    serve(genuine);

    await expect(verifyRelease(remote, { reload: false })).resolves.toEqual({
      name: 'profile',
      entryUrl: `${STORE}/profile/1.0.0/remoteEntry.js`,
      integrity: remote.integrity,
      // Only the listed files inside the release folder.
      assets: [
        `${STORE}/profile/1.0.0/__federation_expose_Feature.9a8f8a55.js`,
        `${STORE}/profile/1.0.0/__federation_expose_Feature.e918a174.css`,
      ],
      // A release built before the build recorded its files' hashes: nothing loads ahead of its entry.
      pinned: [],
    });
  });

  it('pins the listed files inside the release folder by the well-formed hashes the checked manifest records', async () => {
    const chunkHash = await sri('chunk');
    const cssHash = await sri('css');
    const published = manifest();
    published.exposes[0]!.assets.js.sync.push('__federation_expose_Feature.bad.js', 'missing.js');
    // A lazy part of the Feature: it loads when the Feature asks for it, not ahead.
    published.exposes[0]!.assets.js.async.push('lazy.js');
    const withHashes = JSON.stringify({
      ...published,
      [MANIFEST_FILE_HASHES]: {
        '__federation_expose_Feature.9a8f8a55.js': chunkHash,
        '__federation_expose_Feature.e918a174.css': cssHash,
        // Listed, but with a malformed hash; or a hash for a file outside the folder, or not listed at all.
        '__federation_expose_Feature.bad.js': 'sha384-not base64!',
        'https://evil.test/x.js': chunkHash,
        'unlisted.js': chunkHash,
        'lazy.js': chunkHash,
      },
    });
    serve(withHashes);

    const preload = vi.fn();
    const release = await verifyRelease(
      { ...remote, manifestIntegrity: await sri(withHashes) },
      { reload: false, preload },
    );
    // Fetched ahead with the hashes they will be loaded with.
    expect(preload).toHaveBeenCalledWith(
      `${STORE}/profile/1.0.0/__federation_expose_Feature.9a8f8a55.js`,
      chunkHash,
    );
    expect(preload).toHaveBeenCalledWith(
      `${STORE}/profile/1.0.0/__federation_expose_Feature.e918a174.css`,
      cssHash,
    );
    expect(preload).toHaveBeenCalledWith(`${STORE}/profile/1.0.0/lazy.js`, undefined);
    expect(release.pinned).toEqual([
      { url: `${STORE}/profile/1.0.0/__federation_expose_Feature.9a8f8a55.js`, integrity: chunkHash },
      { url: `${STORE}/profile/1.0.0/__federation_expose_Feature.e918a174.css`, integrity: cssHash },
    ]);
    expect(release.assets).toContain(`${STORE}/profile/1.0.0/missing.js`);
    expect(release.assets).toContain(`${STORE}/profile/1.0.0/lazy.js`);
  });

  it('pins nothing from a manifest whose hashes were changed after publish: the manifest itself is refused', async () => {
    const withHashes = {
      ...manifest(),
      [MANIFEST_FILE_HASHES]: { '__federation_expose_Feature.9a8f8a55.js': await sri('chunk') },
    };
    const published = JSON.stringify(withHashes);
    // The attacker's own chunk, hashed into the manifest in place of the genuine one.
    serve(
      JSON.stringify({
        ...withHashes,
        [MANIFEST_FILE_HASHES]: { '__federation_expose_Feature.9a8f8a55.js': await sri('evil chunk') },
      }),
    );

    await expect(
      verifyRelease({ ...remote, manifestIntegrity: await sri(published) }, { reload: false }),
    ).rejects.toMatchObject({ reason: 'refused' });
  });

  it('refuses a manifest swapped in the store for one naming an ES module, before reading it', async () => {
    serve(JSON.stringify(manifest({ name: 'evil.mjs', type: 'module' })));

    const refused = verifyRelease(remote, { reload: false });
    await expect(refused).rejects.toThrow(
      `Profile was not loaded: its manifest (${MANIFEST_URL}) is not the one the registry recorded at publish.`,
    );
    await expect(refused).rejects.toMatchObject({ reason: 'refused', remote });
  });

  it('refuses a manifest changed by one byte', async () => {
    serve(`${genuine} `);

    await expect(verifyRelease(remote, { reload: false })).rejects.toMatchObject({ reason: 'refused' });
  });

  it('refuses a published manifest whose entry is not a classic script on its own folder', async () => {
    const esm = JSON.stringify(manifest({ type: 'module' }));
    serve(esm);

    await expect(
      verifyRelease({ ...remote, manifestIntegrity: await sri(esm) }, { reload: false }),
    ).rejects.toThrow(
      `Profile was not loaded: its manifest (${MANIFEST_URL}) is refused: its entry is of type "module"; ` +
        'only classic scripts (global or var) are run.',
    );
  });

  it('refuses a release the registry recorded no hashes for, without fetching anything', async () => {
    const requests = serve(genuine);

    await expect(verifyRelease({ ...remote, manifestIntegrity: '' }, { reload: false })).rejects.toThrow(
      'Profile was not loaded: the registry recorded no valid hash of its manifest.',
    );
    await expect(verifyRelease({ ...remote, integrity: '' }, { reload: false })).rejects.toThrow(
      'Profile was not loaded: the registry recorded no valid hash of its remoteEntry.js.',
    );
    expect(requests).toEqual([]);
  });

  it('reports a manifest it cannot download as a download failure naming the URL and status', async () => {
    serve('Not found', 404);

    const failed = verifyRelease(remote, { reload: false });
    await expect(failed).rejects.toThrow(`Profile could not be downloaded from ${MANIFEST_URL} (HTTP 404).`);
    await expect(failed).rejects.toBeInstanceOf(RemoteLoadError);
    await expect(failed).rejects.toMatchObject({ reason: 'download' });
  });

  it('has the entry fetched while the manifest is on its way, and the listed files once it is checked', async () => {
    const preloaded: unknown[][] = [];
    let preloadedBeforeTheManifest: unknown[][] | undefined;
    server.use(
      http.get(MANIFEST_URL, () => {
        preloadedBeforeTheManifest = [...preloaded];
        return new HttpResponse(genuine, { headers: { 'Content-Type': 'application/json' } });
      }),
    );

    await verifyRelease(remote, { reload: false, preload: (...args) => preloaded.push(args) });
    // With the registry's hash: the request the loader's script makes.
    const entry = [`${STORE}/profile/1.0.0/remoteEntry.js`, remote.integrity];
    expect(preloadedBeforeTheManifest).toEqual([entry]);
    // Only the listed files inside the release folder, like the assets it returns; this manifest pins none.
    expect(preloaded).toEqual([
      entry,
      [`${STORE}/profile/1.0.0/__federation_expose_Feature.9a8f8a55.js`, undefined],
      [`${STORE}/profile/1.0.0/__federation_expose_Feature.e918a174.css`, undefined],
    ]);
  });

  it('has nothing fetched ahead for a release without hashes, one refused, or on Retry', async () => {
    serve(`${genuine} `);
    const preload = vi.fn();

    await expect(verifyRelease({ ...remote, integrity: '' }, { reload: false, preload })).rejects.toThrow();
    await expect(
      verifyRelease({ ...remote, manifestIntegrity: '' }, { reload: false, preload }),
    ).rejects.toThrow();
    expect(preload).not.toHaveBeenCalled();
    // A manifest that is not the published one: the entry was asked for, but nothing it lists.
    await expect(verifyRelease(remote, { reload: false, preload })).rejects.toMatchObject({
      reason: 'refused',
    });
    expect(preload.mock.calls).toEqual([[`${STORE}/profile/1.0.0/remoteEntry.js`, remote.integrity]]);
    preload.mockClear();
    serve(genuine);
    await verifyRelease(remote, { reload: true, preload });
    expect(preload).not.toHaveBeenCalled();
  });

  it('revalidates the manifest on every load, bypasses the HTTP cache on Retry, and sends no credentials', async () => {
    serve(genuine);
    const fetching = vi.spyOn(globalThis, 'fetch');

    await verifyRelease(remote, { reload: false });
    await verifyRelease(remote, { reload: true });
    expect(fetching.mock.calls).toEqual([
      [MANIFEST_URL, { mode: 'cors', credentials: 'omit', cache: 'no-cache' }],
      [MANIFEST_URL, { mode: 'cors', credentials: 'omit', cache: 'reload' }],
    ]);
    fetching.mockRestore();
  });
});
