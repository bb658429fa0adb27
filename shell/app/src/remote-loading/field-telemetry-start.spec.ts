// @vitest-environment happy-dom
import type { ApiAuthorization, ApiClient } from '@atrium/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiAuthority } from '../auth/api-authorization';
import { createBeacon, startFieldTelemetry } from './field-telemetry';

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
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
  it("reads the slot's marks, earlier ones included, and sends them with keepalive when the page is hidden", async () => {
    // Left before the chunk was loaded: the observer is buffered, so these count too.
    performance.mark('atrium:remote-load:profile', { detail: ['1.4.0', undefined] });
    performance.mark('atrium:remote-loaded:profile', { detail: ['1.4.0', undefined] });
    const post = vi.fn((_path: string, _body?: unknown, _options?: unknown) => Promise.resolve(undefined));
    stop = startFieldTelemetry({ post } as unknown as ApiClient);
    performance.mark('atrium:remote-failed:profile', { detail: ['1.4.0', 'render'] });
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
    performance.mark('atrium:remote-failed:profile', { detail: ['1.4.0', 'render'] });
    await vi.waitFor(() => {
      // Marks reach the observer in a task of their own.
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
    performance.mark('atrium:remote-failed:profile', { detail: ['1.4.0', 'download'] });
    await vi.waitFor(() => {
      window.dispatchEvent(new Event('pagehide'));
      expect(post).toHaveBeenCalledTimes(1);
    });
    expect(post.mock.calls[0]![2]).toEqual({ keepalive: true });
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
