import type { RemoteDescriptor } from '@atrium/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';

const runtime = vi.hoisted(() => ({ loadRemote: vi.fn(), registerRemotes: vi.fn() }));
vi.mock('@module-federation/enhanced/runtime', () => runtime);

const { loadFeature, RemoteLoadError } = await import('./federation');

const slow: RemoteDescriptor = {
  name: 'slow',
  title: 'Slow',
  path: '/slow',
  navOrder: 1,
  version: '1.0.0',
  entry: 'http://remotes.test/slow/1.0.0/mf-manifest.json',
  integrity: null,
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
