import { ErrorResponse, ErrorTimeout } from 'oidc-client-ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { defaultBackoffMs, IdentityProviderMonitor, isUnreachable } from './identity-provider';

/** A Keycloak the test switches between answering, refusing connections and hanging. */
function keycloak() {
  let mode: 'up' | 'down' | 'hanging' = 'up';
  let probes = 0;
  const probe = (signal: AbortSignal) => {
    probes += 1;
    if (mode === 'up') return Promise.resolve();
    if (mode === 'down') return Promise.reject(new TypeError('Failed to fetch'));
    return new Promise<void>((_, reject) =>
      signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError'))),
    );
  };
  return {
    probe,
    set: (next: typeof mode) => {
      mode = next;
    },
    get probes() {
      return probes;
    },
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('IdentityProviderMonitor', () => {
  it('turns unreachable on a failed call, checks with backoff and releases what waited once Keycloak answers', async () => {
    const idp = keycloak();
    idp.set('down');
    const monitor = new IdentityProviderMonitor({ probe: idp.probe });
    let renewed = false;
    void monitor.reportUnreachable('renewal').then(() => {
      renewed = true;
    });
    expect(monitor.getSnapshot()).toMatchObject({ status: 'unreachable', needs: ['renewal'], attempts: 1 });

    await vi.advanceTimersByTimeAsync(1_000); // first check after 1 s: still down
    expect(idp.probes).toBe(1);
    expect(monitor.getSnapshot()).toMatchObject({ status: 'unreachable', attempts: 2 });
    await vi.advanceTimersByTimeAsync(2_000); // then after 2 s
    expect(idp.probes).toBe(2);
    expect(renewed).toBe(false);

    idp.set('up');
    await vi.advanceTimersByTimeAsync(4_000);
    expect(idp.probes).toBe(3);
    expect(monitor.getSnapshot()).toEqual({ status: 'reachable' });
    expect(renewed).toBe(true);
  });

  it('counts a Keycloak that does not answer within the timeout as unreachable', async () => {
    const idp = keycloak();
    idp.set('hanging');
    const monitor = new IdentityProviderMonitor({ probe: idp.probe, timeoutMs: 8_000 });
    let signedOut = false;
    void monitor.whenReachable('sign-out').then(() => {
      signedOut = true;
    });
    await vi.advanceTimersByTimeAsync(7_999);
    expect(monitor.getSnapshot().status).toBe('reachable');
    await vi.advanceTimersByTimeAsync(1);
    expect(monitor.getSnapshot()).toMatchObject({ status: 'unreachable', needs: ['sign-out'] });
    expect(signedOut).toBe(false);

    idp.set('up');
    monitor.retry();
    await vi.advanceTimersByTimeAsync(0);
    expect(signedOut).toBe(true);
    expect(monitor.getSnapshot().status).toBe('reachable');
  });

  it('Retry checks at once instead of at the scheduled time', async () => {
    const idp = keycloak();
    idp.set('down');
    const monitor = new IdentityProviderMonitor({ probe: idp.probe, backoffMs: () => 60_000 });
    void monitor.reportUnreachable('sign-in');
    expect(idp.probes).toBe(0);
    monitor.retry();
    await vi.advanceTimersByTimeAsync(0);
    expect(idp.probes).toBe(1);
    expect(monitor.getSnapshot()).toMatchObject({ status: 'unreachable', attempts: 2 });
  });

  it('collects everything that waits, once each, and tells subscribers of every change', () => {
    const idp = keycloak();
    idp.set('down');
    const monitor = new IdentityProviderMonitor({ probe: idp.probe });
    const changes = vi.fn();
    monitor.subscribe(changes);
    void monitor.reportUnreachable('renewal');
    void monitor.reportUnreachable('session-check');
    void monitor.reportUnreachable('renewal');
    expect(monitor.getSnapshot()).toMatchObject({ needs: ['renewal', 'session-check'] });
    expect(changes).toHaveBeenCalled();
  });

  it('resolves whenReachable at once when Keycloak answers', async () => {
    const idp = keycloak();
    const monitor = new IdentityProviderMonitor({ probe: idp.probe });
    await expect(monitor.whenReachable('sign-out')).resolves.toBeUndefined();
    expect(monitor.getSnapshot().status).toBe('reachable');
  });

  it('backs off 1, 2, 4, 8 s, then checks every 10 s', () => {
    expect([1, 2, 3, 4, 5, 9].map(defaultBackoffMs)).toEqual([1_000, 2_000, 4_000, 8_000, 10_000, 10_000]);
  });
});

describe('isUnreachable', () => {
  it('tells "Keycloak did not answer" from "Keycloak said no"', () => {
    expect(isUnreachable(new TypeError('Failed to fetch'))).toBe(true);
    expect(isUnreachable(new ErrorTimeout('Network timed out'))).toBe(true);
    expect(isUnreachable(new DOMException('The operation timed out.', 'TimeoutError'))).toBe(true);
    expect(isUnreachable(new Error('Service Unavailable (503)'))).toBe(true);
    expect(isUnreachable(new ErrorResponse({ error: 'invalid_grant' }))).toBe(false);
    expect(isUnreachable(new Error('Invalid response Content-Type: text/html'))).toBe(false);
  });
});
