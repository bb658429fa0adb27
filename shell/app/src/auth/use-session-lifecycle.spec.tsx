// @vitest-environment happy-dom
/// <reference types="node" />
import { renderHook, waitFor } from '@testing-library/react';
import { setupServer } from 'msw/node';
import { locks } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { discoveryProbe, IdentityProviderMonitor } from './identity-provider';
import { createUserManager } from './oidc';
import type { SharedUserManager } from './shared-user-manager';
import { clearOriginStorage, fakeKeycloak, MemoryDPoPStore } from './testing/fake-keycloak';
import { SESSION_CHECK_INTERVAL_MS, useSessionLifecycle } from './use-session-lifecycle';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

let keycloak: ReturnType<typeof fakeKeycloak>;
let userManager: SharedUserManager;
let monitor: IdentityProviderMonitor;

beforeEach(async () => {
  keycloak = fakeKeycloak();
  server.use(...keycloak.handlers);
  const dpopStore = new MemoryDPoPStore();
  userManager = createUserManager(keycloak.config, { dpopStore, sharing: { locks } });
  // The key a sign-in would have made: the userinfo call carries a proof signed with it.
  await userManager.generateDPoPJkt({ store: dpopStore });
  monitor = new IdentityProviderMonitor({
    probe: discoveryProbe(keycloak.config.oidc.authority),
    // The tests press Retry themselves.
    backoffMs: () => 60_000,
  });
  await userManager.storeUser(keycloak.signedInUser());
});

afterEach(() => {
  vi.useRealTimers();
  monitor.dispose();
  userManager.close();
  server.resetHandlers();
  clearOriginStorage();
});

const comeBackToTheTab = () => document.dispatchEvent(new Event('visibilitychange'));

describe('useSessionLifecycle', () => {
  it('ends the session here when it ended at Keycloak, as soon as the person comes back to the tab', async () => {
    renderHook(() => useSessionLifecycle(userManager, monitor));
    keycloak.endSession();

    comeBackToTheTab();

    await waitFor(async () => expect(await userManager.getUser()).toBeNull());
    expect(keycloak.userinfoCalls).toBe(1);
    // Confirmed with the refresh token before ending anything.
    expect(keycloak.requests.map((request) => request.outcome)).toEqual(['refused']);
  });

  it('asks Keycloak every minute without any action of the person', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    renderHook(() => useSessionLifecycle(userManager, monitor));
    keycloak.endSession();

    expect(keycloak.userinfoCalls).toBe(0);
    await vi.advanceTimersByTimeAsync(SESSION_CHECK_INTERVAL_MS - 1);
    expect(keycloak.userinfoCalls).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    vi.useRealTimers();

    await waitFor(async () => expect(await userManager.getUser()).toBeNull());
  });

  it('keeps a live session: one cheap userinfo call, no renewal', async () => {
    renderHook(() => useSessionLifecycle(userManager, monitor));

    comeBackToTheTab();

    await waitFor(() => expect(keycloak.userinfoCalls).toBe(1));
    expect(await userManager.getUser()).not.toBeNull();
    expect(keycloak.requests).toEqual([]);
  });

  it('keeps the session while Keycloak does not answer, says so, and carries on once it answers', async () => {
    renderHook(() => useSessionLifecycle(userManager, monitor));
    keycloak.setDown(true);

    comeBackToTheTab();

    await waitFor(() =>
      expect(monitor.getSnapshot()).toMatchObject({ status: 'unreachable', needs: ['session-check'] }),
    );
    expect(await userManager.getUser()).not.toBeNull();

    keycloak.setDown(false);
    monitor.retry();
    await waitFor(() => expect(monitor.getSnapshot().status).toBe('reachable'));
    expect(await userManager.getUser()).not.toBeNull();
  });

  it('waits out a renewal that found Keycloak unreachable, then renews once it answers', async () => {
    renderHook(() => useSessionLifecycle(userManager, monitor));
    keycloak.setDown(true);

    await userManager.events._raiseSilentRenewError(new TypeError('Failed to fetch'));

    expect(monitor.getSnapshot()).toMatchObject({ status: 'unreachable', needs: ['renewal'] });
    expect(await userManager.getUser()).toMatchObject({ access_token: 'at-0' });

    keycloak.setDown(false);
    monitor.retry();
    await waitFor(async () => expect(await userManager.getUser()).toMatchObject({ access_token: 'at-1' }));
    expect(keycloak.requests.map((request) => request.outcome)).toEqual(['issued']);
  });

  it('ends the session when Keycloak refuses the refresh token', async () => {
    renderHook(() => useSessionLifecycle(userManager, monitor));
    keycloak.endSession();

    await userManager.signinSilent().catch(async (error: Error) => {
      await userManager.events._raiseSilentRenewError(error);
    });

    await waitFor(async () => expect(await userManager.getUser()).toBeNull());
    expect(monitor.getSnapshot().status).toBe('reachable');
  });
});
