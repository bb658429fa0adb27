// @vitest-environment happy-dom
/// <reference types="node" />
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SharedUserManager } from '../../auth/shared-user-manager';
import { clearOriginStorage, fakeKeycloak, openSignedInTab } from '../../auth/testing/fake-keycloak';
import { DEV_OVERRIDE_PARAM, wantsDevOverride } from '../../dev-override/dev-override-keys';
import { testRemote } from '../testing/test-remote';
import { createRemoteCatalogue } from './remote-catalogue';

// The early request as the catalogue makes it (./early-remotes.ts), and adopts its answer with the page's loader.
const loader = { adopt: vi.fn(), warm: vi.fn() };

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

let keycloak: ReturnType<typeof fakeKeycloak>;
let userManager: SharedUserManager;
let listUrl: string;
const profile = testRemote('profile');

beforeEach(async () => {
  keycloak = fakeKeycloak();
  server.use(...keycloak.handlers);
  ({ userManager } = await openSignedInTab(keycloak, { signedIn: false }));
  listUrl = `${keycloak.config.apiBaseUrl}/api/remotes`;
});

afterEach(() => {
  userManager.close();
  server.resetHandlers();
  clearOriginStorage();
  window.sessionStorage.clear();
  loader.adopt.mockClear();
});

const early = () =>
  createRemoteCatalogue({ loader, wantsDevOverride }).requestEarly(
    userManager,
    keycloak.config.apiBaseUrl,
    '/api/remotes',
  );

describe('the early list (requestEarly)', () => {
  it("asks for the list with the stored session's token and a proof, and says it was sent before the answer", async () => {
    await userManager.storeUser(keycloak.signedInUser());
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    const seen: Request[] = [];
    server.use(
      http.get(listUrl, async ({ request }) => {
        seen.push(request);
        await answered;
        return HttpResponse.json({ remotes: [profile] });
      }),
    );

    const { remotes, sent } = early();
    await sent;
    await expect.poll(() => seen.length).toBe(1);
    answer();

    await expect(remotes).resolves.toEqual([profile]);
    expect(seen[0]!.headers.get('Authorization')).toBe('DPoP at-0');
    expect(seen[0]!.headers.get('DPoP')).toMatch(/^ey/);
  });

  it('sends nothing without a stored session, or with a token about to expire, and says so at once', async () => {
    let requests = 0;
    server.use(
      http.get(listUrl, () => {
        requests += 1;
        return HttpResponse.json({ remotes: [] });
      }),
    );
    const none = early();
    await none.sent;
    await expect(none.remotes).resolves.toBeUndefined();

    const user = keycloak.signedInUser();
    user.expires_at = Math.floor(Date.now() / 1000) + 10;
    await userManager.storeUser(user);
    const expiring = early();
    await expiring.sent;
    await expect(expiring.remotes).resolves.toBeUndefined();
    expect(requests).toBe(0);
  });

  it('leaves a failed request to the signed-in shell (undefined), and never renews the token', async () => {
    await userManager.storeUser(keycloak.signedInUser());
    server.use(http.get(listUrl, () => HttpResponse.json({ title: 'Unauthorized' }, { status: 401 })));

    const { remotes, sent } = early();
    await sent;

    await expect(remotes).resolves.toBeUndefined();
    expect(keycloak.requests).toEqual([]);
  });

  it('adopts the list as soon as it is read: the page starts loading the feature it opens at', async () => {
    await userManager.storeUser(keycloak.signedInUser());
    window.history.replaceState(null, '', '/profile/settings');
    server.use(http.get(listUrl, () => HttpResponse.json({ remotes: [profile] })));

    await expect(early().remotes).resolves.toEqual([profile]);
    expect(loader.adopt).toHaveBeenCalledExactlyOnceWith([profile], { ahead: profile, devServers: [] });
  });

  it('leaves the list to the signed-in shell in a tab with a dev override, which changes what loads', async () => {
    await userManager.storeUser(keycloak.signedInUser());
    window.sessionStorage.setItem(DEV_OVERRIDE_PARAM, '[]');
    server.use(http.get(listUrl, () => HttpResponse.json({ remotes: [profile] })));

    await expect(early().remotes).resolves.toEqual([profile]);
    expect(loader.adopt).not.toHaveBeenCalled();
  });

  it('neither adopts nor hands over a list whose session ended while it was on its way', async () => {
    await userManager.storeUser(keycloak.signedInUser());
    let answer = () => {};
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get(listUrl, async () => {
        await answered;
        return HttpResponse.json({ remotes: [profile] });
      }),
    );

    const { remotes, sent } = early();
    await sent;
    await userManager.removeUser();
    answer();

    await expect(remotes).resolves.toBeUndefined();
    expect(loader.adopt).not.toHaveBeenCalled();
  });
});
