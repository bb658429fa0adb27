// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import type { ApiClient } from '@atrium/sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ListedRemote } from '../loader/remote-loader';
import { testRemote } from '../testing/test-remote';
import type { CatalogueState } from './catalogue-state';
import {
  changedReleases,
  parsePulled,
  pulledMessage,
  RELEASE_CHECK_INTERVAL_MS,
  ReleaseWatch,
  type WatchedCatalogue,
} from './release-watch';
import { parseRemotes } from './remotes-list';

const profile = testRemote('profile');
const admin = testRemote('admin');
const profileNext = testRemote('profile', { version: '1.1.0' });

/** A catalogue that adopted `listed` as the registry answered it. */
function adoptedCatalogue(listed: readonly ListedRemote[]) {
  let state: CatalogueState = { early: 'none', step: 'adopted', remotes: listed, listed };
  const catalogue: WatchedCatalogue & { readonly state: () => CatalogueState } = {
    getSnapshot: () => state,
    markPulled: vi.fn((remotes: readonly ListedRemote[]) => {
      state = { ...state, remotes };
    }),
    state: () => state,
  };
  return catalogue;
}

/** A registry whose answers are `answers` in turn (the last one again once they run out). */
function registry(...answers: unknown[]) {
  const get = vi.fn(() => Promise.resolve(answers.length > 1 ? answers.shift() : answers[0]));
  return Object.assign({ get } as unknown as Pick<ApiClient, 'get'>, { calls: get });
}

async function nextCheck(): Promise<void> {
  await act(() => vi.advanceTimersByTimeAsync(RELEASE_CHECK_INTERVAL_MS));
}

beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('ReleaseWatch', () => {
  it('marks a release the page holds as pulled, with why and the version now served, once', async () => {
    const catalogue = adoptedCatalogue([admin, profile]);
    const api = registry({
      remotes: [admin, profileNext],
      withdrawn: [{ name: 'profile', version: '1.0.0', kind: 'withdrawn', reason: 'leaks data' }],
    });
    render(
      <ReleaseWatch
        catalogue={catalogue}
        api={api}
        remotesUrl="/api/remotes"
        parse={parseRemotes}
        remember={vi.fn()}
      />,
    );

    await nextCheck();
    expect(catalogue.markPulled).toHaveBeenCalledExactlyOnceWith([
      admin,
      {
        ...profile,
        pulled: 'Profile 1.0.0 was withdrawn: leaks data. Reload the page to use version 1.1.0.',
      },
    ]);
    await nextCheck();
    expect(api.calls).toHaveBeenCalledTimes(2);
    expect(catalogue.markPulled).toHaveBeenCalledOnce();
  });

  it('offers a reload once the registry serves other releases, and "Later" hides it until the next change', async () => {
    const catalogue = adoptedCatalogue([admin, profile]);
    const canary = {
      ...profileNext,
      version: '1.2.0',
      entry: 'http://remotes.test/profile/1.2.0/mf-manifest.json',
    };
    const api = registry(
      { remotes: [admin, profile], withdrawn: [] },
      { remotes: [admin, profileNext], withdrawn: [] },
      { remotes: [admin, profileNext], withdrawn: [] },
      { remotes: [admin, canary], withdrawn: [] },
    );
    const remember = vi.fn();
    render(
      <ReleaseWatch
        catalogue={catalogue}
        api={api}
        remotesUrl="/api/remotes"
        parse={parseRemotes}
        remember={remember}
      />,
    );
    const notice = screen.getByRole('status', { hidden: true });

    await nextCheck();
    expect(notice.hidden).toBe(true);
    expect(remember).not.toHaveBeenCalled();
    await nextCheck();
    expect(notice.hidden).toBe(false);
    // The next page starts from the newer list: a reload fetches nothing ahead of a release no longer served.
    expect(remember).toHaveBeenLastCalledWith([admin, profileNext]);
    expect(notice.textContent).toContain('A new version of Profile is available.');
    expect(screen.getByRole('button', { name: 'Reload' })).toBeTruthy();

    fireEvent.click(screen.getByRole('button', { name: 'Later' }));
    expect(notice.hidden).toBe(true);
    await nextCheck();
    expect(notice.hidden).toBe(true);
    await nextCheck();
    expect(notice.hidden).toBe(false);
    expect(catalogue.markPulled).not.toHaveBeenCalled();
  });

  it('asks nothing while the page is hidden', async () => {
    const hidden = vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    const api = registry({ remotes: [profile], withdrawn: [] });
    render(
      <ReleaseWatch
        catalogue={adoptedCatalogue([profile])}
        api={api}
        remotesUrl="/api/remotes"
        parse={parseRemotes}
        remember={vi.fn()}
      />,
    );

    await nextCheck();
    expect(api.calls).not.toHaveBeenCalled();
    hidden.mockRestore();
  });
});

describe('parsePulled', () => {
  it('keeps well-formed items and leaves out the rest', () => {
    const good = { name: 'profile', version: '1.0.0', kind: 'rolled-back', reason: '12 of 40 loads failed' };
    expect(parsePulled({ withdrawn: [good, { name: 'x' }, null, { ...good, kind: 'other' }] })).toEqual([
      good,
    ]);
    expect(parsePulled({ remotes: [] })).toEqual([]);
    expect(parsePulled('nonsense')).toEqual([]);
  });
});

describe('pulledMessage', () => {
  it('says what happened, why and what to do', () => {
    expect(
      pulledMessage(
        profileNext,
        { name: 'profile', version: '1.1.0', kind: 'rolled-back', reason: 'too many failures.' },
        [profile],
      ),
    ).toBe('Profile 1.1.0 was rolled back: too many failures. Reload the page to use version 1.0.0.');
    expect(
      pulledMessage(profile, { name: 'profile', version: '1.0.0', kind: 'withdrawn', reason: ' ' }, []),
    ).toBe('Profile 1.0.0 was withdrawn. Reload the page to use the version available now.');
  });
});

describe('changedReleases', () => {
  it('names each remote served differently: another version, added or gone', () => {
    expect(changedReleases([admin, profile], [admin, profile])).toBeUndefined();
    expect(changedReleases([admin, profile], [admin, profileNext])?.titles).toEqual(['Profile']);
    expect(changedReleases([profile], [admin, profile])?.titles).toEqual(['Admin']);
    expect(changedReleases([admin, profile], [profile])?.titles).toEqual(['Admin']);
  });
});
