// @vitest-environment happy-dom
import type { ApiClient } from '@atrium/sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startFieldTelemetry } from './field-telemetry';

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  performance.clearMarks();
});

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

  it('starts once per page, and not at all outside the shell', () => {
    expect(startFieldTelemetry(undefined)()).toBeUndefined();
    const api = { post: vi.fn() } as unknown as ApiClient;
    stop = startFieldTelemetry(api);
    expect(startFieldTelemetry(api)).toBe(stop);
  });
});
