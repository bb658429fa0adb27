// @vitest-environment happy-dom
import type { FeatureProps, RemoteModule } from '@atrium/sdk';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FeatureLoader } from './loader/remote-loader';
import { RemoteLoadError } from './remote-load-error';
import { RemoteSlot } from './remote-slot';
import { testRemote } from './testing/test-remote';

const profile = testRemote('profile');
const TIMEOUT = 10_000;

function Working({ basePath }: FeatureProps) {
  return <p>Feature mounted at {basePath}</p>;
}

beforeEach(() => {
  // React reports errors caught by boundaries on console.error; they are the behaviour under test here.
  vi.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

describe('RemoteSlot', () => {
  it('shows a loading state, then renders the feature with its base path', async () => {
    const load = vi.fn<FeatureLoader>(() => Promise.resolve({ Feature: Working }));
    render(<RemoteSlot remote={profile} timeoutMs={TIMEOUT} load={load} />);

    expect(screen.getByRole('status')).toHaveProperty('textContent', 'Loading Profile…');
    expect(await screen.findByText('Feature mounted at /profile')).toBeTruthy();
    expect(load).toHaveBeenCalledWith(profile, { retry: false, timeoutMs: TIMEOUT });
  });

  it('shows an error with Retry when the remote cannot be downloaded, and loads again on Retry', async () => {
    const load = vi
      .fn<FeatureLoader>()
      .mockRejectedValueOnce(new RemoteLoadError(profile, 'download', 'Profile could not be downloaded.'))
      .mockResolvedValueOnce({ Feature: Working });
    render(<RemoteSlot remote={profile} timeoutMs={TIMEOUT} load={load} />);

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Profile is unavailable');
    expect(alert.textContent).toContain('Profile could not be downloaded.');

    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));

    expect(await screen.findByText('Feature mounted at /profile')).toBeTruthy();
    expect(load).toHaveBeenLastCalledWith(profile, { retry: true, timeoutMs: TIMEOUT });
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('takes a feature on screen away when the registry pulls its release, says why and offers a reload', async () => {
    const load = vi.fn<FeatureLoader>((remote) =>
      remote.pulled === undefined
        ? Promise.resolve({ Feature: Working })
        : Promise.reject(new RemoteLoadError(remote, 'withdrawn', remote.pulled)),
    );
    const { rerender } = render(<RemoteSlot remote={profile} timeoutMs={TIMEOUT} load={load} />);
    expect(await screen.findByText('Feature mounted at /profile')).toBeTruthy();
    const reload = vi.fn();
    vi.spyOn(window, 'location', 'get').mockReturnValue({ ...window.location, reload });

    const pulled = {
      ...profile,
      pulled: 'Profile 1.0.0 was withdrawn: leaks data. Reload the page to use version 1.0.1.',
    };
    rerender(<RemoteSlot remote={pulled} timeoutMs={TIMEOUT} load={load} />);

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Profile 1.0.0 was withdrawn: leaks data.');
    expect(screen.queryByText('Feature mounted at /profile')).toBeNull();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Reload' }));
    expect(reload).toHaveBeenCalledOnce();
  });

  it('catches a crash inside the remote in its error boundary and recovers on Retry', async () => {
    let crash = true;
    function Flaky(props: FeatureProps) {
      if (crash) throw new Error('remote exploded');
      return <Working {...props} />;
    }
    const module: RemoteModule = { Feature: Flaky };
    const load = vi.fn<FeatureLoader>(() => Promise.resolve(module));
    render(
      <main>
        <p>Shell chrome stays</p>
        <RemoteSlot remote={profile} timeoutMs={TIMEOUT} load={load} />
      </main>,
    );

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('Profile is unavailable');
    expect(alert.textContent).toContain('remote exploded');
    expect(screen.getByText('Shell chrome stays')).toBeTruthy();

    crash = false;
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));

    expect(await screen.findByText('Feature mounted at /profile')).toBeTruthy();
    expect(load).toHaveBeenCalledTimes(2);
  });
});
