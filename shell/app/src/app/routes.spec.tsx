// @vitest-environment happy-dom
import type { FeatureProps, RemoteDescriptor } from '@atrium/sdk';
import type { AsyncResource } from '@atrium/sdk/ui';
import { TEST_USER } from '@atrium/sdk/testing';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Router } from 'wouter';
import { memoryLocation } from 'wouter/memory-location';
import type { FeatureLoader } from '../remote-loading/loader/remote-loader';
import { testRemote } from '../remote-loading/testing/test-remote';
import { AppRoutes } from './routes';

afterEach(cleanup);

const profile = testRemote('profile');

const controls = { refetch: () => undefined, setData: () => undefined };
const ready = (data: readonly RemoteDescriptor[]): AsyncResource<readonly RemoteDescriptor[]> => ({
  ...controls,
  status: 'ready',
  data,
  error: undefined,
  refreshing: false,
});
const loading: AsyncResource<readonly RemoteDescriptor[]> = {
  ...controls,
  status: 'loading',
  data: undefined,
  error: undefined,
  refreshing: false,
};

function Profile({ basePath }: FeatureProps) {
  return <p>Profile feature at {basePath}</p>;
}
const loadFeature: FeatureLoader = () => Promise.resolve({ Feature: Profile });

function renderAt(path: string, remotes: AsyncResource<readonly RemoteDescriptor[]>) {
  const location = memoryLocation({ path, record: true });
  render(
    <Router hook={location.hook}>
      <AppRoutes
        user={{ ...TEST_USER, name: 'Ada Lovelace' }}
        remotes={remotes}
        redirectPath="/auth/callback"
        remoteTimeoutMs={10_000}
        loadFeature={loadFeature}
      />
    </Router>,
  );
  return location;
}

describe('AppRoutes', () => {
  it('shows the home page at / with the features the registry lists, titled Home', () => {
    renderAt('/', ready([profile]));
    expect(screen.getByRole('heading', { level: 1, name: 'Welcome, Ada Lovelace' })).toBeTruthy();
    expect(document.title).toBe('Home · Atrium');
    expect(screen.getByRole('region', { name: 'Your features' }).textContent).toContain('Profile');
  });

  it("mounts a remote's feature at its route, with the route as its base path", async () => {
    renderAt('/profile/settings', ready([profile]));
    expect(await screen.findByText('Profile feature at /profile')).toBeTruthy();
  });

  it('says "Page not found" (and titles the page so) where no remote lives, once the list is in', () => {
    renderAt('/nowhere', ready([profile]));
    expect(screen.getByRole('heading', { level: 1, name: 'Page not found' })).toBeTruthy();
    expect(document.title).toBe('Page not found · Atrium');
  });

  it('waits for the list of remotes before deciding that an address is unknown', () => {
    renderAt('/profile', loading);
    expect(screen.getByRole('status').textContent).toBe('Loading features…');
    expect(screen.queryByRole('heading', { name: 'Page not found' })).toBeNull();
  });

  it('says why the list of remotes failed and retries it', () => {
    let retries = 0;
    renderAt('/profile', {
      ...controls,
      refetch: () => (retries += 1),
      status: 'failed',
      data: undefined,
      error: new Error('The Atrium API could not be reached.'),
      refreshing: false,
    });
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('The list of features could not be loaded');
    expect(alert.textContent).toContain('The Atrium API could not be reached.');
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(retries).toBe(1);
  });

  it('leads home from the sign-in callback path', () => {
    const location = renderAt('/auth/callback', ready([]));
    expect(location.history).toEqual(['/']);
    expect(screen.getByText('No features are available yet.')).toBeTruthy();
  });
});
