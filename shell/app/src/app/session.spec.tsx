// @vitest-environment happy-dom
/// <reference types="node" />
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import type { ReactNode } from 'react';
import { AuthProvider } from 'react-oidc-context';
import { discoveryProbe, IdentityProviderMonitor } from '../auth/identity-provider';
import { IdentityProviderMonitorProvider } from '../auth/identity-provider-notice';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SharedUserManager } from '../auth/shared-user-manager';
import { clearOriginStorage, fakeKeycloak, openSignedInTab } from '../auth/testing/fake-keycloak';
import { useSession } from './session';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

let keycloak: ReturnType<typeof fakeKeycloak>;
let userManager: SharedUserManager;

beforeEach(async () => {
  keycloak = fakeKeycloak();
  server.use(...keycloak.handlers);
  ({ userManager } = await openSignedInTab(keycloak));
});

afterEach(() => {
  cleanup();
  userManager.close();
  server.resetHandlers();
  clearOriginStorage();
  vi.restoreAllMocks();
});

function renderSession() {
  const monitor = new IdentityProviderMonitor({ probe: discoveryProbe(keycloak.config.oidc.authority) });
  const wrapper = ({ children }: { children: ReactNode }) => (
    <IdentityProviderMonitorProvider value={monitor}>
      <AuthProvider userManager={userManager}>{children}</AuthProvider>
    </IdentityProviderMonitorProvider>
  );
  return renderHook(
    () => useSession({ userManager, apiBaseUrl: keycloak.config.apiBaseUrl, postLogoutPath: '/signed-out' }),
    { wrapper },
  );
}

describe('useSession', () => {
  it('names the signed-in person and calls the API with their DPoP-bound token', async () => {
    let seen: { authorization: string | null; dpop: string | null } | undefined;
    server.use(
      http.get(`${keycloak.config.apiBaseUrl}/api/me`, ({ request }) => {
        seen = { authorization: request.headers.get('Authorization'), dpop: request.headers.get('DPoP') };
        return HttpResponse.json({});
      }),
    );
    const { result } = renderSession();

    await waitFor(() => expect(result.current.user?.sub).toBe('alice-id'));
    await result.current.api.get('/api/me');
    expect(seen?.authorization).toBe('DPoP at-0');
    expect(seen?.dpop?.split('.')).toHaveLength(3);
  });

  it('signs out at Keycloak with the id token, coming back to the post-logout path', async () => {
    const signoutRedirect = vi.spyOn(userManager, 'signoutRedirect').mockResolvedValue(undefined);
    const { result } = renderSession();
    await waitFor(() => expect(result.current.user).not.toBeNull());

    await act(() => result.current.signOut());

    expect(signoutRedirect).toHaveBeenCalledWith({
      id_token_hint: (await userManager.getUser())?.id_token,
      post_logout_redirect_uri: `${window.location.origin}/signed-out`,
    });
  });
});
