// @vitest-environment happy-dom
import type { RemoteDescriptor } from '@atrium/sdk';
import { afterEach, beforeEach, describe, expect, it, vi, type Mock } from 'vitest';
import type { RemoteLoader } from '../loader/remote-loader';
import { testRemote } from '../testing/test-remote';
import type { CatalogueState } from './catalogue-state';
import { createRemoteCatalogue, type CatalogueSession, type OverriddenList } from './remote-catalogue';
import { rememberRemotes } from './remembered-remotes';

// The early request itself (the stored session, its proof, its checks) is ./early-remotes.spec.ts's: here it is a
// promise each test settles.
const earlyRequest = vi.hoisted(() => ({ requestRemotesEarly: vi.fn() }));
vi.mock('./early-remotes', () => earlyRequest);

const profile = testRemote('profile');
const admin = testRemote('admin');

/** A promise and the function that settles it, for steps a test holds open. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((done, fail) => {
    resolve = done;
    reject = fail;
  });
  return { promise, resolve, reject };
}

/** Lets every promise callback that is due run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

let loader: { warm: Mock<RemoteLoader['warm']>; adopt: Mock<RemoteLoader['adopt']> };
let devOverride: boolean;
let path: string;
beforeEach(() => {
  loader = { warm: vi.fn<RemoteLoader['warm']>(), adopt: vi.fn<RemoteLoader['adopt']>() };
  devOverride = false;
  path = '/profile/settings';
});
afterEach(() => {
  localStorage.clear();
  window.history.replaceState(null, '', '/');
  vi.resetAllMocks();
});

const catalogue = () =>
  createRemoteCatalogue({ loader, wantsDevOverride: () => devOverride, pathname: () => path });

/** A signed-in session whose registry answers `answers` in turn (a list, or an error to throw). */
function session(answers: (readonly RemoteDescriptor[] | Error | Promise<unknown>)[], signedIn = true) {
  const get = vi.fn((_url: string, _options?: { signal?: AbortSignal }) => {
    const answer = answers.shift();
    if (answer instanceof Error) return Promise.reject(answer);
    if (answer instanceof Promise) return answer;
    return Promise.resolve({ remotes: answer });
  });
  const value: CatalogueSession = {
    api: { get } as unknown as CatalogueSession['api'],
    remotesUrl: '/api/remotes',
    isSignedIn: () => Promise.resolve(signedIn),
  };
  return { value, get };
}

/** The steps the session's list went through, as a subscriber saw them. */
function stepsOf(store: ReturnType<typeof catalogue>) {
  const seen: CatalogueState['step'][] = [];
  store.subscribe(() => {
    const { step } = store.getSnapshot();
    if (seen.at(-1) !== step) seen.push(step);
  });
  return seen;
}

describe('the remote catalogue', () => {
  it('starts with no list: no session has asked, nothing was remembered or asked for early', () => {
    expect(catalogue().getSnapshot()).toEqual({ early: 'none', step: 'closed' });
  });

  describe('remembered', () => {
    it('has the loader check the release the page opens at, as the last page kept it, and adopts nothing', () => {
      rememberRemotes([profile, admin]);
      const store = catalogue();

      store.recall();

      expect(store.getSnapshot().remembered).toEqual(profile);
      expect(loader.warm).toHaveBeenCalledExactlyOnceWith(profile);
      expect(loader.adopt).not.toHaveBeenCalled();
    });

    it('recalls nothing at a path no kept remote lives at, nor while a sign-in completes', () => {
      rememberRemotes([profile]);
      path = '/elsewhere';
      catalogue().recall();
      path = '/profile';
      window.history.replaceState(null, '', '/profile?code=abc&state=xyz');
      catalogue().recall();

      expect(loader.warm).not.toHaveBeenCalled();
    });

    it('forgets the kept list (signed out)', () => {
      rememberRemotes([profile]);
      const store = catalogue();
      store.forget();
      store.recall();

      expect(loader.warm).not.toHaveBeenCalled();
    });
  });

  describe('early', () => {
    it('adopts the early answer at once, and hands it to the first session, which does not ask again', async () => {
      earlyRequest.requestRemotesEarly.mockReturnValue({
        remotes: Promise.resolve([profile]),
        sent: Promise.resolve(),
      });
      const store = catalogue();
      store.requestEarly({} as never, 'http://api.test', '/api/remotes');
      expect(store.getSnapshot().early).toBe('asking');
      await settle();
      expect(store.getSnapshot().early).toBe('answered');
      expect(loader.adopt).toHaveBeenCalledExactlyOnceWith([profile], { ahead: profile, devServers: [] });

      const first = session([]);
      store.open(first.value);
      await settle();
      expect(store.getSnapshot()).toMatchObject({ early: 'taken', step: 'adopted', remotes: [profile] });
      expect(first.get).not.toHaveBeenCalled();
    });

    it('serves only the first session: a later one, or a Retry, asks the registry', async () => {
      earlyRequest.requestRemotesEarly.mockReturnValue({
        remotes: Promise.resolve([profile]),
        sent: Promise.resolve(),
      });
      const store = catalogue();
      store.requestEarly({} as never, 'http://api.test', '/api/remotes');
      store.open(session([]).value)();
      const second = session([[admin], [profile]]);
      store.open(second.value);
      await settle();
      expect(store.getSnapshot().remotes).toEqual([admin]);
      store.retry();
      await settle();
      expect(store.getSnapshot().remotes).toEqual([profile]);
      expect(second.get).toHaveBeenCalledTimes(2);

      // Asked for again (the config loaded again), it is still the first session's only.
      store.requestEarly({} as never, 'http://api.test', '/api/remotes');
      const third = session([[admin]]);
      store.open(third.value);
      await settle();
      expect(store.getSnapshot().early).toBe('taken');
      expect(third.get).toHaveBeenCalledOnce();
    });

    it('is taken by a session that opens before it is answered, which waits for it', async () => {
      const answer = deferred<readonly RemoteDescriptor[] | undefined>();
      earlyRequest.requestRemotesEarly.mockReturnValue({ remotes: answer.promise, sent: Promise.resolve() });
      const store = catalogue();
      store.requestEarly({} as never, 'http://api.test', '/api/remotes');
      const opened = session([]);
      store.open(opened.value);
      expect(store.getSnapshot()).toMatchObject({ early: 'taken', step: 'loading' });

      answer.resolve([profile]);
      await settle();
      expect(store.getSnapshot()).toMatchObject({ early: 'taken', step: 'adopted', remotes: [profile] });
      expect(opened.get).not.toHaveBeenCalled();
    });

    it('has the session ask the registry when there was no early answer', async () => {
      earlyRequest.requestRemotesEarly.mockReturnValue({
        remotes: Promise.resolve(undefined),
        sent: Promise.resolve(),
      });
      const store = catalogue();
      store.requestEarly({} as never, 'http://api.test', '/api/remotes');
      await settle();
      expect(store.getSnapshot().early).toBe('none');
      const opened = session([[profile]]);
      store.open(opened.value);
      await settle();

      expect(opened.get).toHaveBeenCalledOnce();
      expect(store.getSnapshot()).toMatchObject({ step: 'adopted', remotes: [profile] });
    });

    it('is not adopted in a tab with a dev override: the session applies the override first', async () => {
      devOverride = true;
      earlyRequest.requestRemotesEarly.mockReturnValue({
        remotes: Promise.resolve([profile]),
        sent: Promise.resolve(),
      });
      const store = catalogue();
      store.requestEarly({} as never, 'http://api.test', '/api/remotes');
      await settle();

      expect(store.getSnapshot().early).toBe('answered');
      expect(loader.adopt).not.toHaveBeenCalled();
    });
  });

  describe("a session's list", () => {
    it('goes loading → fresh → adopted: the loader runs it, starting the remote the page opens at', async () => {
      const store = catalogue();
      const steps = stepsOf(store);
      store.open(session([[admin, profile]]).value);
      await settle();

      expect(steps).toEqual(['loading', 'fresh', 'adopted']);
      expect(store.getSnapshot().remotes).toEqual([admin, profile]);
      expect(loader.adopt).toHaveBeenCalledExactlyOnceWith([admin, profile], {
        ahead: profile,
        devServers: [],
      });
    });

    it('keeps the fresh list for the next page while someone is signed in, never after a sign-out', async () => {
      catalogue().open(session([[profile]]).value);
      await settle();
      expect(JSON.parse(localStorage.getItem('atrium:last-remotes')!)).toEqual({ remotes: [profile] });

      localStorage.clear();
      catalogue().open(session([[profile]], false).value);
      await settle();
      expect(localStorage.getItem('atrium:last-remotes')).toBeNull();
    });

    it('applies the dev overrides to the fresh list before anything of it is adopted, and hands the loader their dev servers', async () => {
      const overriding = deferred<OverriddenList>();
      const applyDevOverrides = vi.fn(() => overriding.promise);
      const store = catalogue();
      store.open({ ...session([[profile]]).value, applyDevOverrides });
      await settle();
      expect(store.getSnapshot()).toMatchObject({ step: 'fresh', remotes: [profile] });
      expect(applyDevOverrides).toHaveBeenCalledExactlyOnceWith([profile]);
      expect(loader.adopt).not.toHaveBeenCalled();

      const overridden = { ...profile, entry: 'http://localhost:5001/mf-manifest.json' };
      const devServers = [{ remote: 'profile', folder: 'http://localhost:5001/' }];
      overriding.resolve({ remotes: [overridden], devServers });
      await settle();
      expect(store.getSnapshot()).toMatchObject({ step: 'adopted', remotes: [overridden] });
      expect(loader.adopt).toHaveBeenCalledExactlyOnceWith([overridden], { ahead: overridden, devServers });
      // What is kept for the next page is the registry's list, never a dev server.
      expect(JSON.parse(localStorage.getItem('atrium:last-remotes')!)).toEqual({ remotes: [profile] });
    });

    it('fails with the reason when the list cannot be read, and Retry asks the registry again', async () => {
      const store = catalogue();
      const steps = stepsOf(store);
      const down = new Error('The Atrium API could not be reached.');
      const opened = session([down, [profile]]);
      store.open(opened.value);
      await settle();
      expect(store.getSnapshot().step).toBe('failed');
      expect((store.getSnapshot().error as Error).message).toContain('The Atrium API could not be reached.');
      expect(loader.adopt).not.toHaveBeenCalled();

      store.retry();
      await settle();
      expect(steps).toEqual(['loading', 'failed', 'loading', 'fresh', 'adopted']);
      expect(opened.get).toHaveBeenCalledTimes(2);
    });

    it('drops an answer that comes after its session closed: nothing is adopted, kept or shown', async () => {
      const answer = deferred<unknown>();
      const store = catalogue();
      const opened = session([answer.promise]);
      const close = store.open(opened.value);
      await vi.waitFor(() => expect(opened.get).toHaveBeenCalled());
      close();
      const signal = opened.get.mock.calls[0]![1]?.signal;
      expect(signal?.aborted).toBe(true);

      answer.resolve({ remotes: [profile] });
      await settle();
      expect(store.getSnapshot().step).toBe('closed');
      expect(loader.adopt).not.toHaveBeenCalled();
      expect(localStorage.getItem('atrium:last-remotes')).toBeNull();
    });

    it('drops the answer of an attempt a Retry superseded', async () => {
      const late = deferred<unknown>();
      const store = catalogue();
      store.open(session([late.promise, [admin]]).value);
      store.retry();
      await settle();
      late.resolve({ remotes: [profile] });
      await settle();

      expect(store.getSnapshot()).toMatchObject({ step: 'adopted', remotes: [admin] });
      expect(loader.adopt).toHaveBeenCalledOnce();
    });

    it("leaves the session a later one opened alone when an earlier one's close comes late", async () => {
      const store = catalogue();
      const closeFirst = store.open(session([[admin]]).value);
      store.open(session([[profile]]).value);
      closeFirst();
      await settle();

      expect(store.getSnapshot()).toMatchObject({ step: 'adopted', remotes: [profile] });
    });
  });
  describe('a pulled release', () => {
    it('takes the adopted list again with the pulled release marked, keeping the list the registry answered', async () => {
      const store = catalogue();
      store.open(session([[admin, profile]]).value);
      await settle();
      const before = store.getSnapshot();
      const pulled = { ...profile, pulled: 'Profile was withdrawn: leaks data.' };

      store.markPulled([admin, pulled]);

      expect(store.getSnapshot()).toMatchObject({ step: 'adopted', remotes: [admin, pulled] });
      // The registry's list as it answered stays what later answers are compared with.
      expect(store.getSnapshot().listed).toBe(before.listed);
    });
  });
});
