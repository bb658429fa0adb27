// @vitest-environment happy-dom
/// <reference types="node" />
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { setupServer } from 'msw/node';
import { locks } from 'node:worker_threads';
import { AuthProvider } from 'react-oidc-context';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { AuthGate } from './auth-gate';
import { discoveryProbe, IdentityProviderMonitor } from './identity-provider';
import { IdentityProviderMonitorProvider } from './identity-provider-notice';
import { createUserManager } from './oidc';
import { clearOriginStorage, fakeKeycloak, MemoryDPoPStore } from './testing/fake-keycloak';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
afterEach(() => {
  server.resetHandlers();
  clearOriginStorage();
  window.sessionStorage.clear();
});

it('says in words that Keycloak is unreachable at start-up, offers Retry, and starts the sign-in once Keycloak answers', async () => {
  const keycloak = fakeKeycloak();
  server.use(...keycloak.handlers);
  keycloak.setDown(true);
  const userManager = createUserManager(keycloak.config, {
    dpopStore: new MemoryDPoPStore(),
    sharing: { locks },
  });
  const realSigninRedirect = userManager.signinRedirect.bind(userManager);
  const redirects: string[] = [];
  vi.spyOn(userManager, 'signinRedirect').mockImplementation(async (args) => {
    // The real redirect while Keycloak is down (it fails on the discovery document); afterwards, the
    // navigation to Keycloak is recorded instead of leaving the test page.
    if (redirects.push('attempt') === 1) return realSigninRedirect(args);
    return Promise.resolve();
  });
  const monitor = new IdentityProviderMonitor({
    probe: discoveryProbe(keycloak.config.oidc.authority),
    backoffMs: () => 60_000,
  });

  render(
    <IdentityProviderMonitorProvider value={monitor}>
      <AuthProvider userManager={userManager}>
        <AuthGate authority={keycloak.config.oidc.authority}>
          <p>signed in</p>
        </AuthGate>
      </AuthProvider>
    </IdentityProviderMonitorProvider>,
  );

  expect(
    await screen.findByRole('heading', { name: "Can't reach the sign-in service. Retrying…" }),
  ).toBeTruthy();
  expect(screen.getByText(/You will be taken to sign in as soon as it answers\./)).toBeTruthy();
  await waitFor(() =>
    expect(monitor.getSnapshot()).toMatchObject({ status: 'unreachable', needs: ['sign-in'] }),
  );
  expect(redirects).toHaveLength(1);

  // Retry while Keycloak is still down: checked, still down, no redirect.
  fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
  await waitFor(() => expect(monitor.getSnapshot()).toMatchObject({ attempts: 2 }));
  expect(redirects).toHaveLength(1);

  keycloak.setDown(false);
  await act(async () => {
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    await Promise.resolve();
  });
  await waitFor(() => expect(redirects).toHaveLength(2));
  expect(monitor.getSnapshot().status).toBe('reachable');
  monitor.dispose();
  userManager.close();
});
