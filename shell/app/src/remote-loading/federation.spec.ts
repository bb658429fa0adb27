// @vitest-environment happy-dom
import type { RemoteDescriptor } from '@atrium/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';

const runtime = vi.hoisted(() => ({
  loadRemote: vi.fn(),
  registerPlugins: vi.fn(),
  registerRemotes: vi.fn(),
}));
vi.mock('@module-federation/enhanced/runtime', () => runtime);

const { integrityPlugin, loadFeature, registerFeatureRemotes, RemoteLoadError } =
  await import('./federation');

const slow: RemoteDescriptor = {
  name: 'slow',
  title: 'Slow',
  path: '/slow',
  navOrder: 1,
  version: '1.0.0',
  entry: 'http://remotes.test/slow/1.0.0/mf-manifest.json',
  integrity: 'sha384-slow',
  manifestIntegrity: 'sha384-slow-manifest',
};

afterEach(() => {
  vi.useRealTimers();
  vi.resetAllMocks();
});

describe('loadFeature', () => {
  it('gives up with a RemoteLoadError naming the timeout when the remote never answers', async () => {
    vi.useFakeTimers();
    runtime.loadRemote.mockReturnValue(new Promise(() => undefined));

    const loading = loadFeature(slow, { retry: false, timeoutMs: 2_000 });
    const outcome = expect(loading).rejects.toThrow('Slow did not load within 2 s');
    await vi.advanceTimersByTimeAsync(2_000);
    await outcome;
    await expect(loading).rejects.toBeInstanceOf(RemoteLoadError);
  });

  it('wraps a download failure in a RemoteLoadError that names the entry', async () => {
    runtime.loadRemote.mockRejectedValue(new Error('Failed to fetch'));

    await expect(loadFeature(slow, { retry: false, timeoutMs: 2_000 })).rejects.toThrow(
      'Slow could not be downloaded from http://remotes.test/slow/1.0.0/mf-manifest.json.',
    );
  });

  it('re-registers the remote with force on Retry so a cached failure is not reused', async () => {
    const Feature = () => null;
    runtime.loadRemote.mockResolvedValue({ Feature });

    await expect(loadFeature(slow, { retry: true, timeoutMs: 2_000 })).resolves.toEqual({ Feature });
    expect(runtime.registerRemotes).toHaveBeenCalledWith([{ name: 'slow', entry: slow.entry }], {
      force: true,
    });
    expect(runtime.loadRemote).toHaveBeenCalledWith('slow/Feature');
  });

  it('refuses a module without a Feature component', async () => {
    runtime.loadRemote.mockResolvedValue({});

    await expect(loadFeature(slow, { retry: false, timeoutMs: 2_000 })).rejects.toThrow(
      'Slow does not export a Feature component.',
    );
  });
});

describe('integrityPlugin', () => {
  const signed: RemoteDescriptor = {
    ...slow,
    name: 'signed',
    entry: 'http://remotes.test/signed/1.0.0/mf-manifest.json',
    integrity: 'sha384-abc',
  };
  const entryUrl = 'http://remotes.test/signed/1.0.0/remoteEntry.js';
  // What the runtime knows about a remote once its manifest is read: entry is then the remoteEntry.js URL.
  const remoteInfo = (name: string) =>
    ({
      name,
      entry: name === 'signed' ? entryUrl : 'http://remotes.test/slow/1.0.0/remoteEntry.js',
    }) as never;
  const createScript = (url: string, name: string) =>
    integrityPlugin.createScript!({ url, remoteInfo: remoteInfo(name) });

  it('is registered with the runtime along with the remotes', () => {
    registerFeatureRemotes([signed, slow]);

    expect(runtime.registerPlugins).toHaveBeenCalledWith([integrityPlugin]);
    expect(runtime.registerRemotes).toHaveBeenCalledWith(
      [
        { name: 'signed', entry: signed.entry },
        { name: 'slow', entry: slow.entry },
      ],
      { force: true },
    );
  });

  it("loads a remote's remoteEntry.js with its registered integrity and CORS", () => {
    registerFeatureRemotes([signed]);

    const script = createScript(entryUrl, 'signed');
    expect(script).toBeInstanceOf(HTMLScriptElement);
    expect((script as HTMLScriptElement).integrity).toBe('sha384-abc');
    expect((script as HTMLScriptElement).crossOrigin).toBe('anonymous');
  });

  it('leaves scripts other than a remote entry to the runtime', () => {
    registerFeatureRemotes([signed, slow]);

    expect(createScript('http://remotes.test/signed/1.0.0/other.js', 'signed')).toBeUndefined();
    expect(integrityPlugin.createScript!({ url: entryUrl })).toBeUndefined();
  });

  it('uses the new hash when the remote is listed again with another release', () => {
    registerFeatureRemotes([signed]);
    registerFeatureRemotes([{ ...signed, integrity: 'sha384-def' }]);

    expect((createScript(entryUrl, 'signed') as HTMLScriptElement).integrity).toBe('sha384-def');
  });

  it("turns off the runtime's preloading of chunks, which would skip their hashes", async () => {
    const preloadOps = [{ nameOrAlias: 'signed', exposes: ['./Feature'] }];

    await integrityPlugin.beforePreloadRemote!({ preloadOps } as never);
    expect(preloadOps).toEqual([]);
  });
});
