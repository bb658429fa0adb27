// @vitest-environment happy-dom
/// <reference types="node" />
import { locks } from 'node:worker_threads';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { calculateJwkThumbprint, decodeProtectedHeader, type JWK } from 'jose';
import { UserManager, type User } from 'oidc-client-ts';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { DPoPKeyCache } from './dpop-key-cache';
import { createUserManager } from './oidc';
import type { SharedUserManager } from './shared-user-manager';
import { clearOriginStorage, fakeKeycloak, MemoryDPoPStore, unsignedJwt } from './testing/fake-keycloak';

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());

let keycloak: ReturnType<typeof fakeKeycloak>;
let dpopStore: MemoryDPoPStore;
const tabs: SharedUserManager[] = [];

/** A tab of the shell: its own UserManager, sharing the origin's storage, locks, channels and DPoP key. */
function openTab(): SharedUserManager {
  // Node's Web Locks (the implementation behind its navigator.locks): happy-dom's navigator has none.
  const tab = createUserManager(keycloak.config, { dpopStore, sharing: { locks } });
  tabs.push(tab);
  return tab;
}

function nextEvent(subscribe: (listener: (user?: User) => void) => () => void): Promise<User | undefined> {
  return new Promise((resolve) => {
    const unsubscribe = subscribe((user) => {
      unsubscribe();
      resolve(user);
    });
  });
}

beforeEach(async () => {
  keycloak = fakeKeycloak();
  dpopStore = new MemoryDPoPStore();
  server.use(...keycloak.handlers);
  // Signed in through the first tab: the code exchange stored the user and created the DPoP key.
  const first = openTab();
  await first.storeUser(keycloak.signedInUser());
  await first.generateDPoPJkt({ store: dpopStore });
});

afterEach(() => {
  vi.useRealTimers();
  for (const tab of tabs.splice(0)) tab.close();
  server.resetHandlers();
  clearOriginStorage();
});

describe('SharedUserManager', () => {
  it('lets two tabs renewing at the same moment redeem the refresh token once, and both carry on', async () => {
    const [tabA, tabB] = [tabs[0]!, openTab()];

    const [renewedA, renewedB] = await Promise.all([tabA.signinSilent(), tabB.signinSilent()]);

    expect(keycloak.requests.map((request) => request.outcome)).toEqual(['issued']);
    expect(renewedA?.access_token).toBe('at-1');
    expect(renewedB?.access_token).toBe('at-1');
    // A reload, or a tab opened now, finds the renewed session.
    expect((await openTab().getUser())?.refresh_token).toBe('rt-1');
  });

  it('lets concurrent renewals within one tab (the timer and a 401 retry) redeem the refresh token once', async () => {
    const tab = tabs[0]!;

    const renewed = await Promise.all([tab.signinSilent(), tab.signinSilent(), tab.signinSilent()]);

    expect(keycloak.requests).toHaveLength(1);
    expect(renewed.map((user) => user?.access_token)).toEqual(['at-1', 'at-1', 'at-1']);
  });

  it('is what keeps tabs apart: two plain UserManagers racing get one of them refused', async () => {
    // The same race without coordination, to show the fake Keycloak refuses a spent refresh token.
    const settings = tabs[0]!.settings;
    const plain = [new UserManager(settings), new UserManager(settings)];
    try {
      const results = await Promise.allSettled(plain.map((tab) => tab.signinSilent()));
      expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(keycloak.requests.map((request) => request.outcome).sort()).toEqual(['issued', 'refused']);
    } finally {
      for (const tab of plain) tab.stopSilentRenew();
    }
  });

  it('hands renewed tokens to the other tabs at once, so they move their timers instead of renewing again', async () => {
    const [tabA, tabB] = [tabs[0]!, openTab()];
    const loadedInB = nextEvent((listener) => tabB.events.addUserLoaded(listener));

    await tabA.signinSilent();

    expect((await loadedInB)?.access_token).toBe('at-1');
    await tabB.signinSilent();
    expect(keycloak.requests.map((request) => [request.refreshToken, request.outcome])).toEqual([
      ['rt-0', 'issued'],
      ['rt-1', 'issued'],
    ]);
  });

  describe('renewing before expiry', () => {
    /** Tabs whose expiry timers run on a fake clock (tokens live 60 s; renewal starts 20 s before the end). */
    function openTimedTabs(): { tabA: SharedUserManager; tabB: SharedUserManager } {
      tabs.splice(0).forEach((tab) => tab.close());
      vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
      const tabA = openTab();
      // Tab B has not heard of tab A's renewal yet: its channel hears nothing.
      const tabB = createUserManager(keycloak.config, {
        dpopStore,
        sharing: { locks, channel: new BroadcastChannel('a channel no other tab writes to') },
      });
      tabs.push(tabB);
      return { tabA, tabB };
    }

    it("renews once when the access token is about to expire, though both tabs' timers fire", async () => {
      const { tabA, tabB } = openTimedTabs();
      await Promise.all([tabA.getUser(), tabB.getUser()]);
      const renewed = nextEvent((listener) => tabA.events.addUserLoaded(listener));

      await vi.advanceTimersByTimeAsync(46_000);

      expect((await renewed)?.access_token).toBe('at-1');
      expect(keycloak.requests.map((request) => [request.refreshToken, request.outcome])).toEqual([
        ['rt-0', 'issued'],
      ]);
    });

    it('takes the renewal another tab made since its timer was set, instead of renewing again', async () => {
      const { tabA, tabB } = openTimedTabs();
      await Promise.all([tabA.getUser(), tabB.getUser()]);
      await vi.advanceTimersByTimeAsync(25_000);
      // Tab A renews (a request that found its token close to expiry, say); the new token lives 60 s.
      await tabA.signinSilent();
      const loadedInB = nextEvent((listener) => tabB.events.addUserLoaded(listener));

      // Tab B's timer, set for the first token, fires now.
      await vi.advanceTimersByTimeAsync(21_000);

      expect((await loadedInB)?.access_token).toBe('at-1');
      expect(keycloak.requests.map((request) => [request.refreshToken, request.outcome])).toEqual([
        ['rt-0', 'issued'],
      ]);
    });
  });

  it('signs every tab with the one DPoP key the origin keeps', async () => {
    const [tabA, tabB] = [tabs[0]!, openTab()];

    await tabA.signinSilent();
    await tabB.signinSilent();

    const keys = new Set(keycloak.requests.map((request) => request.keyThumbprint));
    expect(keycloak.requests).toHaveLength(2);
    expect(keys).toEqual(new Set([await tabA.generateDPoPJkt({ store: dpopStore })]));
  });

  it('signs out every tab when one signs out, and marks the others as signed out elsewhere', async () => {
    const [tabA, tabB] = [tabs[0]!, openTab()];
    const unloadedInB = nextEvent((listener) => tabB.events.addUserUnloaded(listener));
    let notified = 0;
    tabB.subscribe(() => (notified += 1));

    await tabA.removeUser();

    await unloadedInB;
    expect(await tabB.getUser()).toBeNull();
    expect(tabB.signedOutElsewhere).toBe(true);
    expect(tabA.signedOutElsewhere).toBe(false);
    expect(notified).toBe(1);
    // The key goes with the session: tokens issued to it are worth nothing to the next sign-in.
    expect(await dpopStore.getAllKeys()).toEqual([]);
  });

  it('removes the key before the session, so a sign-in started the moment the session is gone keeps its key', async () => {
    const tab = tabs[0]!;
    const userStore = tab.settings.userStore;
    const removeSession = userStore.remove.bind(userStore);
    let signIn: Promise<string | undefined> | undefined;
    vi.spyOn(userStore, 'remove').mockImplementation(async (key) => {
      const removed = await removeSession(key);
      // The page sees no session and starts a sign-in at once (the auth gate does), binding its code to the
      // key it finds or makes.
      signIn = tab.generateDPoPJkt({ store: dpopStore });
      return removed;
    });

    await tab.removeUser();

    const boundTo = await signIn!;
    // The callback signs the code exchange with the key the store holds then: the one the code is bound to.
    expect(await dpopStore.getAllKeys()).toEqual([tab.settings.client_id]);
    expect(await tab.generateDPoPJkt({ store: dpopStore })).toBe(boundTo);
  });

  it('lets no renewal run while the session ends: it makes no key of its own and brings no session back', async () => {
    const tab = tabs[0]!;
    const userStore = tab.settings.userStore;
    const removeSession = userStore.remove.bind(userStore);
    let renewal: Promise<unknown> | undefined;
    vi.spyOn(userStore, 'remove').mockImplementation(async (key) => {
      // The key pair is gone and the session not yet: a renewal's timer fires now. It waits for the end, or
      // (as it once did) finds the session, makes a key pair for its token request and sends it.
      renewal = tab.signinSilent().catch((error: unknown) => error);
      await vi.waitFor(async () => {
        const { pending = [] } = await locks.query();
        if (
          keycloak.requests.length === 0 &&
          !pending.some((lock) => lock.name?.startsWith('atrium:session'))
        )
          throw new Error('the renewal has neither sent its request nor waited for the lock');
      });
      return removeSession(key);
    });

    await tab.removeUser();
    // The page sees no session and starts a sign-in, binding its code to the key it finds or makes.
    const boundTo = await tab.generateDPoPJkt({ store: dpopStore });
    expect(await renewal).toBeInstanceOf(Error);

    expect(keycloak.requests).toEqual([]);
    expect(await tab.getUser()).toBeNull();
    // The callback signs the code exchange with the key the code was bound to, so Keycloak accepts it.
    expect(await tab.generateDPoPJkt({ store: dpopStore })).toBe(boundTo);
  });

  it('ends a session once: a second end, arriving after a sign-in began, leaves that sign-in its key', async () => {
    const tab = tabs[0]!;
    // The session check finds the session over and ends it; the auth gate starts a sign-in at once.
    await tab.removeUser();
    const boundTo = await tab.generateDPoPJkt({ store: dpopStore });

    // A renewal that was already on its way comes back refused and ends the session again.
    await tab.removeUser();

    // The callback signs the code exchange with the key the code was bound to, so Keycloak accepts it.
    expect(await tab.generateDPoPJkt({ store: dpopStore })).toBe(boundTo);
  });

  it('leaves the new sign-in its key when another tab ends the session this tab already ended', async () => {
    const [tabA, tabB] = [tabs[0]!, openTab()];
    await tabA.removeUser();
    const boundTo = await tabA.generateDPoPJkt({ store: dpopStore });

    // Tab B's session check found the session over before it heard of tab A's sign-out.
    await tabB.removeUser();

    expect(await tabA.generateDPoPJkt({ store: dpopStore })).toBe(boundTo);
  });

  it('signs the other tabs back in when one signs in again', async () => {
    const [tabA, tabB] = [tabs[0]!, openTab()];
    const unloadedInB = nextEvent((listener) => tabB.events.addUserUnloaded(listener));
    await tabA.removeUser();
    await unloadedInB;
    const loadedInB = nextEvent((listener) => tabB.events.addUserLoaded(listener));

    await tabA.storeUser(keycloak.signedInUser());

    expect((await loadedInB)?.access_token).toBe('at-0');
    expect(tabB.signedOutElsewhere).toBe(false);
  });

  it('takes the session another tab signed in with while a renewal was refused, instead of ending it', async () => {
    const [tabA, tabB] = [tabs[0]!, openTab()];
    const replacement = keycloak.signedInUser('signed-in-again');
    server.use(
      http.post(keycloak.tokenEndpoint, async () => {
        // Keycloak sees the other tab's new sign-in first, and refuses the refresh token this tab sent.
        await tabB.storeUser(replacement);
        return HttpResponse.json(
          { error: 'invalid_grant', error_description: 'Stale token' },
          { status: 400 },
        );
      }),
    );

    const renewed = await tabA.signinSilent();

    expect(renewed?.access_token).toBe(replacement.access_token);
    expect((await tabA.getUser())?.access_token).toBe(replacement.access_token);
  });

  it("signs with the key of another tab's new sign-in, not the one it held in memory", async () => {
    // Each tab holds the key pair in memory, over the origin's one store.
    const openCachingTab = () => {
      const tab = createUserManager(keycloak.config, {
        dpopStore: new DPoPKeyCache(dpopStore),
        sharing: { locks },
      });
      tabs.push(tab);
      return tab;
    };
    const [tabA, tabB] = [openCachingTab(), openCachingTab()];
    const keyOfProof = async (tab: SharedUserManager) => {
      const proof = await tab.dpopProof('https://api.example/api/me', (await tab.getUser())!, 'GET');
      return calculateJwkThumbprint(decodeProtectedHeader(proof!).jwk as JWK);
    };
    const before = await keyOfProof(tabA);

    const unloadedInA = nextEvent((listener) => tabA.events.addUserUnloaded(listener));
    await tabB.removeUser();
    await unloadedInA;
    const loadedInA = nextEvent((listener) => tabA.events.addUserLoaded(listener));
    const after = await tabB.generateDPoPJkt({ store: tabB.settings.dpop!.store });
    await tabB.storeUser(keycloak.signedInUser('signed-in-again'));
    await loadedInA;

    expect(after).not.toBe(before);
    expect(await keyOfProof(tabA)).toBe(after);
  });

  it('signs with the key of a sign-in it never heard of: a copy read while its config loaded is checked against the token', async () => {
    const keyOfProof = async (tab: SharedUserManager, user: User) => {
      const proof = await tab.dpopProof('https://api.example/api/me', user, 'GET');
      return calculateJwkThumbprint(decodeProtectedHeader(proof!).jwk as JWK);
    };
    // Tab B starts loading: it reads the key pair before its user manager (and its channel) exists.
    const cacheOfB = new DPoPKeyCache(dpopStore);
    const before = await cacheOfB.get(keycloak.config.oidc.clientId);
    // Meanwhile tab A signs out and in again: a new key pair, and a token bound to it.
    const tabA = tabs[0]!;
    await tabA.removeUser();
    const after = await tabA.generateDPoPJkt({ store: dpopStore });
    const renewed = keycloak.signedInUser('signed-in-again');
    renewed.access_token = unsignedJwt({ sub: 'alice-id', cnf: { jkt: after } });
    await tabA.storeUser(renewed);

    const tabB = createUserManager(keycloak.config, { dpopStore: cacheOfB, sharing: { locks } });
    tabs.push(tabB);

    expect(await cacheOfB.get(keycloak.config.oidc.clientId)).toBe(before); // the stale copy, still held
    expect(await keyOfProof(tabB, (await tabB.getUser())!)).toBe(after);
  });

  it('still reports a refused renewal when no other session took its place', async () => {
    const tab = tabs[0]!;
    server.use(
      http.post(keycloak.tokenEndpoint, () =>
        HttpResponse.json(
          { error: 'invalid_grant', error_description: 'Session not active' },
          { status: 400 },
        ),
      ),
    );

    await expect(tab.signinSilent()).rejects.toMatchObject({ error: 'invalid_grant' });
  });
});
