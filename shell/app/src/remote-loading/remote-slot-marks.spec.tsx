// @vitest-environment happy-dom
import { AtriumProvider, type ApiClient, type AtriumContextValue, type FeatureProps } from '@atrium/sdk';
import { cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FeatureLoader } from './loader/remote-loader';
import { RemoteLoadError } from './remote-load-error';
import { RemoteSlot } from './remote-slot';
import { testRemote } from './testing/test-remote';

const profile = testRemote('profile', { version: '1.4.0' });

const marks = () =>
  performance
    .getEntriesByType('mark')
    .filter((entry) => entry.name.startsWith('atrium:remote-'))
    .map((entry) => [entry.name, (entry as PerformanceMark).detail as unknown]);

beforeEach(() => {
  performance.clearMarks();
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

/*
 * What the slot records (field-telemetry-entry.ts): each outcome goes to field telemetry, and is left as a
 * performance mark naming the remote's version for measuring.
 */
describe('RemoteSlot marks for field telemetry', () => {
  it('marks the load, its end and the first render', async () => {
    const load = vi.fn<FeatureLoader>(() => Promise.resolve({ Feature: () => <p>Profile</p> }));
    render(<RemoteSlot remote={profile} timeoutMs={1000} load={load} />);
    await screen.findByText('Profile');
    // The render is marked by an effect, after the commit.
    await vi.waitFor(() =>
      expect(marks()).toEqual([
        ['atrium:remote-load:profile', ['1.4.0', undefined]],
        ['atrium:remote-loaded:profile', ['1.4.0', undefined]],
        ['atrium:remote-rendered:profile', ['1.4.0', undefined]],
      ]),
    );
  });

  it('marks a failed load with its reason, and a crash while rendering as a render failure', async () => {
    const failing = vi.fn<FeatureLoader>(() =>
      Promise.reject(new RemoteLoadError(profile, 'timeout', 'Profile did not load within 1 s.')),
    );
    render(<RemoteSlot remote={profile} timeoutMs={1000} load={failing} />);
    await screen.findByText('Profile is unavailable');
    expect(marks().at(-1)).toEqual(['atrium:remote-failed:profile', ['1.4.0', 'timeout']]);
    cleanup();

    function Throws(_props: FeatureProps): never {
      throw new Error('broken canary');
    }
    render(
      <RemoteSlot remote={profile} timeoutMs={1000} load={() => Promise.resolve({ Feature: Throws })} />,
    );
    await screen.findByText('Profile is unavailable');
    expect(
      marks()
        .filter(([name]) => name === 'atrium:remote-failed:profile')
        .at(-1),
    ).toEqual(['atrium:remote-failed:profile', ['1.4.0', 'render']]);
  });

  it('loads once while the shell re-renders around it (a navigation, a theme change)', async () => {
    const load = vi.fn<FeatureLoader>(() => Promise.resolve({ Feature: () => <p>Profile</p> }));
    const context = (location: string): AtriumContextValue => ({
      user: { sub: 'a1', username: 'alice', name: 'Alice', email: undefined, roles: [] },
      api: shellApi,
      theme: 'system',
      setTheme: vi.fn(),
      signOut: () => Promise.resolve(),
      navigate: vi.fn(),
      location,
    });
    const shellApi = { post: vi.fn(() => Promise.resolve(undefined)) } as unknown as ApiClient;
    const view = render(
      <AtriumProvider value={context('/profile')}>
        <RemoteSlot remote={profile} timeoutMs={1000} load={load} />
      </AtriumProvider>,
    );
    await screen.findByText('Profile');
    view.rerender(
      <AtriumProvider value={context('/profile/settings')}>
        <RemoteSlot remote={profile} timeoutMs={1000} load={load} />
      </AtriumProvider>,
    );
    await screen.findByText('Profile');
    expect(load).toHaveBeenCalledTimes(1);
    expect(marks().filter(([name]) => name === 'atrium:remote-load:profile')).toHaveLength(1);
  });
});
