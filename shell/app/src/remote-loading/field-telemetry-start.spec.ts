// @vitest-environment happy-dom
import type { ApiAuthorization, ApiClient } from '@atrium/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiAuthority } from '../auth/api-authorization';
import { createBeacon, startFieldTelemetry } from './field-telemetry';
import { markRemote } from './field-telemetry-entry';
import { remoteOutcomes } from './remote-outcomes';
import { testRemote } from './testing/test-remote';

const profile = testRemote('profile', { version: '1.4.0' });

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  // What a test's slot recorded after its telemetry stopped is not the next test's.
  remoteOutcomes.listen(() => undefined)();
  performance.clearMarks();
  vi.unstubAllGlobals();
  Object.defineProperty(document, 'visibilityState', { value: 'visible', configurable: true });
});

/** An access token (unsigned: only its `exp` is read) expiring `seconds` from now, as `DPoP <token>`. */
const dpopAuthorization = (seconds: number): ApiAuthorization => {
  const part = (value: object) => btoa(JSON.stringify(value)).replace(/=+$/, '');
  const exp = Math.floor(Date.now() / 1000) + seconds;
  return { authorization: `DPoP ${part({ alg: 'none' })}.${part({ exp })}.sig`, dpop: 'proof.for.post' };
};

const hide = () => {
  Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
  document.dispatchEvent(new Event('visibilitychange'));
};

describe('startFieldTelemetry', () => {
  it('reads what the slot recorded, earlier outcomes included, and sends it with keepalive when the page is hidden', async () => {
    // Recorded before the chunk was loaded: kept for it, so these count too.
    markRemote(profile, 'load');
    markRemote(profile, 'loaded');
    const post = vi.fn((_path: string, _body?: unknown, _options?: unknown) => Promise.resolve(undefined));
    stop = startFieldTelemetry({ post } as unknown as ApiClient);
    markRemote(profile, 'failed', 'render');
    await vi.waitFor(() => {
      Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
      document.dispatchEvent(new Event('visibilitychange'));
      expect(post).toHaveBeenCalled();
    });
    const [path, body, options] = post.mock.calls[0]!;
    expect(path).toBe('/api/telemetry');
    expect(options).toEqual({ keepalive: true });
    expect(body).toMatchObject({
      reports: [
        {
          remote: 'profile',
          version: '1.4.0',
          failures: { download: 0, integrity: 0, timeout: 0, render: 1 },
        },
      ],
    });
    expect((body as { reports: Array<{ loadMs: number[] }> }).reports[0]!.loadMs).toHaveLength(1);
  });

  it('starts the request within the hide event, with a token and proof obtained ahead, then gets the next ones', async () => {
    const authorize = vi.fn<ApiAuthority['authorize']>(() => Promise.resolve(dpopAuthorization(300)));
    const fetch = vi.fn((_url: string, _init: RequestInit) =>
      Promise.resolve(new Response('{"accepted":1,"ignored":0}', { status: 202 })),
    );
    vi.stubGlobal('fetch', fetch);
    const post = vi.fn(() => Promise.resolve(undefined));
    stop = startFieldTelemetry({ post } as unknown as ApiClient, {
      baseUrl: 'http://api.test',
      authorize,
    });
    expect(authorize).toHaveBeenCalledWith({ method: 'POST', url: 'http://api.test/api/telemetry' });
    await vi.waitFor(() => expect(authorize.mock.results[0]?.value).toBeInstanceOf(Promise));
    await authorize.mock.results[0]!.value;
    await Promise.resolve();
    markRemote(profile, 'load');
    markRemote(profile, 'loaded');
    markRemote(profile, 'failed', 'render');
    await vi.waitFor(() => {
      hide();
      // No await between the event and the request: an unloading page runs nothing later.
      expect(fetch).toHaveBeenCalledTimes(1);
    });
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe('http://api.test/api/telemetry');
    expect(init).toMatchObject({ method: 'POST', keepalive: true });
    expect(new Headers(init.headers).get('dpop')).toBe('proof.for.post');
    expect(new Headers(init.headers).get('authorization')).toMatch(/^DPoP /);
    expect(JSON.parse(init.body as string)).toMatchObject({
      reports: [{ remote: 'profile', version: '1.4.0', failures: { render: 1 } }],
    });
    expect(post).not.toHaveBeenCalled();
    // Each token and proof are used once: the next ones are being obtained.
    expect(authorize).toHaveBeenCalledTimes(2);
  });

  it('sends through the API client when nothing is ready, also on pagehide', async () => {
    const post = vi.fn((_path: string, _body?: unknown, _options?: unknown) => Promise.resolve(undefined));
    stop = startFieldTelemetry({ post } as unknown as ApiClient, {
      baseUrl: 'http://api.test',
      authorize: () => new Promise(() => undefined),
    });
    markRemote(profile, 'failed', 'download');
    await vi.waitFor(() => {
      window.dispatchEvent(new Event('pagehide'));
      expect(post).toHaveBeenCalledTimes(1);
    });
    expect(post.mock.calls[0]![2]).toEqual({ keepalive: true });
  });

  it("never reports the marks a remote's code writes for another remote, before or after it starts", async () => {
    // A remote on the page writes the slot's mark names for a remote it wants rolled back, in every
    // visitor's browser: before telemetry starts and while it runs.
    const forge = () => performance.mark('atrium:remote-failed:admin', { detail: ['2.0.0', 'download'] });
    for (let mark = 0; mark < 20; mark += 1) forge();
    const post = vi.fn((_path: string, _body?: unknown, _options?: unknown) => Promise.resolve(undefined));
    stop = startFieldTelemetry({ post } as unknown as ApiClient);
    for (let mark = 0; mark < 20; mark += 1) forge();
    // The slot's own outcome of the remote the person really loaded still goes.
    markRemote(profile, 'failed', 'timeout');
    await new Promise((resolve) => setTimeout(resolve, 20));
    hide();
    await vi.waitFor(() => expect(post).toHaveBeenCalledTimes(1));
    expect(post.mock.calls[0]![1]).toEqual({
      reports: [expect.objectContaining({ remote: 'profile', version: '1.4.0' })],
    });
  });

  it('starts once per page, and not at all outside the shell', () => {
    expect(startFieldTelemetry(undefined)()).toBeUndefined();
    const api = { post: vi.fn() } as unknown as ApiClient;
    stop = startFieldTelemetry(api);
    expect(startFieldTelemetry(api)).toBe(stop);
  });
});

describe('createBeacon', () => {
  it('uses what it obtained ahead once, for 30 s at most, and never a token about to expire', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(() => Promise.resolve(new Response(null, { status: 202 }))),
    );
    let now = Date.now();
    const tokens = [dpopAuthorization(300), dpopAuthorization(300), dpopAuthorization(3)];
    const authorize = vi.fn(() => Promise.resolve(tokens.shift()!));
    const beacon = createBeacon({ baseUrl: 'http://api.test', authorize }, () => now);
    const settled = async () => {
      for (let tick = 0; tick < 5; tick += 1) await Promise.resolve();
    };
    beacon.arm();
    await settled();
    expect(beacon.send({ reports: [] })).toBeInstanceOf(Promise);
    // Used once; the next are obtained at once, and grow too old in 30 s.
    expect(authorize).toHaveBeenCalledTimes(2);
    await settled();
    now += 31_000;
    expect(beacon.send({ reports: [] })).toBeUndefined();
    // This token expires in 3 s: too soon to be used later.
    beacon.arm();
    await settled();
    expect(authorize).toHaveBeenCalledTimes(3);
    expect(beacon.send({ reports: [] })).toBeUndefined();
  });
});
