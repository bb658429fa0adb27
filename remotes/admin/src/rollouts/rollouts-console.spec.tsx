// @vitest-environment happy-dom
import {
  AtriumProvider,
  createApiClient,
  type AdminRemotesDocument,
  type AtriumContextValue,
  type RemoteHealthDocument,
  type RolloutDocument,
} from '@atrium/sdk';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { RolloutsConsole } from './rollouts-console';

const API = window.location.origin;
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
});
afterAll(() => server.close());

const registry: AdminRemotesDocument = {
  remotes: [
    {
      name: 'profile',
      title: 'Profile',
      path: '/profile',
      navOrder: 10,
      requiredRoles: [],
      owner: 'atrium-deployer',
      activeVersion: '1.0.0',
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:05:00.000Z',
      versions: ['1.1.0', '1.0.0'].map((version) => ({
        version,
        manifestUrl: `http://localhost:4100/profile/${version}/mf-manifest.json`,
        integrity: `sha384-entry-${version}`,
        manifestIntegrity: `sha384-manifest-${version}`,
        shared: null,
        publishedBy: 'atrium-deployer',
        publishedAt: '2026-11-22T10:00:00.000Z',
        active: version === '1.0.0',
        withdrawal: null,
        breaking: false,
      })),
    },
  ],
};

const point = (minute: string, attempts: number, failures: number) => ({
  minute,
  attempts,
  failures,
  failuresByKind: { download: 0, integrity: 0, timeout: 0, render: failures },
  loadMsMean: 200,
  renderMsMean: 40,
  poorVitals: 1,
  vitals: 4,
});
const health: RemoteHealthDocument = {
  remote: 'profile',
  since: '2026-11-23T10:00:00.000Z',
  versions: [
    {
      version: '1.0.0',
      points: [point('2026-11-23T12:00:00.000Z', 90, 1), point('2026-11-23T12:01:00.000Z', 10, 0)],
    },
    { version: '1.1.0', points: [point('2026-11-23T12:01:00.000Z', 20, 10)] },
  ],
  canary: null,
};

const running: RolloutDocument = {
  remote: 'profile',
  version: '1.1.0',
  stableVersion: '1.0.0',
  percent: 10,
  roles: ['beta-testers'],
  state: 'running',
  startedBy: 'ada',
  startedAt: '2026-11-23T12:00:00.000Z',
  updatedAt: '2026-11-23T12:00:00.000Z',
  endedBy: null,
  endedAt: null,
  reason: null,
};

function renderWithShell() {
  const context: AtriumContextValue = {
    user: { sub: 'a1', username: 'ada', name: 'Ada', email: undefined, roles: ['atrium-admin'] },
    api: createApiClient({
      baseUrl: API,
      authorize: () => Promise.resolve({ authorization: 'DPoP token', dpop: 'header.payload.signature' }),
      renewAuthorization: () => Promise.resolve(),
    }),
    theme: 'system',
    setTheme: vi.fn(),
    signOut: () => Promise.resolve(),
    navigate: vi.fn(),
    location: '/admin/rollouts',
  };
  render(
    <AtriumProvider value={context}>
      <RolloutsConsole />
    </AtriumProvider>,
  );
}

describe('RolloutsConsole', () => {
  it('moves focus to the outcome when aborting removes the buttons of the running canary', async () => {
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry)),
      http.get(`${API}/api/admin/remotes/profile/health`, () => HttpResponse.json(health)),
      http.get(`${API}/api/remotes/profile/rollout`, () => HttpResponse.json({ rollout: running })),
      http.post(`${API}/api/remotes/profile/rollout/abort`, () =>
        HttpResponse.json({ ...running, state: 'aborted', endedBy: 'ada', reason: 'too slow' }),
      ),
    );
    renderWithShell();

    const abort = await screen.findByRole('button', { name: 'Abort' });
    abort.focus();
    fireEvent.click(abort);
    const outcome = await screen.findByRole('status');
    expect(outcome.textContent).toMatch(/^Canary aborted: Canary 1\.1\.0 was aborted by ada: too slow\./);
    expect(screen.queryByRole('button', { name: 'Abort' })).toBeNull();
    expect(document.activeElement).toBe(outcome);
  });

  it("shows each version's field health and starts a canary with the chosen audience", async () => {
    const started: unknown[] = [];
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry)),
      http.get(`${API}/api/admin/remotes/profile/health`, () => HttpResponse.json(health)),
      http.get(`${API}/api/remotes/profile/rollout`, () => HttpResponse.json({ rollout: null })),
      http.post(`${API}/api/remotes/profile/rollout`, async ({ request }) => {
        started.push(await request.json());
        return HttpResponse.json(running, { status: 201 });
      }),
    );
    renderWithShell();

    const table = await screen.findByTestId('health-profile');
    const rows = within(table)
      .getAllByRole('row')
      .slice(1)
      .map((row) => row.textContent);
    expect(rows).toEqual(['1.0.010011.0 %25.0 %', '1.1.0201050.0 %25.0 %']);
    // The chart's numbers as a table: each minute, each version's failure rate ('–' where it had no loads).
    const minutes = within(screen.getByTestId('health-minutes-profile'))
      .getAllByRole('row')
      .slice(1)
      .map((row) => [...row.children].slice(1).map((cell) => cell.textContent));
    expect(minutes).toEqual([
      ['1.1 %', '–'],
      ['0.0 %', '50.0 %'],
    ]);
    expect(screen.getByTestId('rollout-state-profile').textContent).toBe('No canary has run.');

    fireEvent.change(screen.getByLabelText('Share of people (%)'), { target: { value: '25' } });
    fireEvent.change(screen.getByLabelText('Roles (comma-separated)'), {
      target: { value: 'beta-testers, qa' },
    });
    fireEvent.click(screen.getByRole('button', { name: 'Start canary' }));
    expect((await screen.findByRole('status')).textContent).toBe(
      'Canary started: Canary 1.1.0 runs for 10 % of people and holders of beta-testers; everybody else gets 1.0.0.',
    );
    expect(started).toEqual([{ version: '1.1.0', percent: 25, roles: ['beta-testers', 'qa'] }]);
  });

  it('shows what the automatic rollback judges a running canary on: loads, failures and people per side', async () => {
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry)),
      http.get(`${API}/api/admin/remotes/profile/health`, () =>
        HttpResponse.json({
          ...health,
          canary: {
            version: '1.1.0',
            stableVersion: '1.0.0',
            since: '2026-11-23T12:00:00.000Z',
            canary: { attempts: 12, failures: 11.571, reporters: 12 },
            stable: { attempts: 13, failures: 1, reporters: 13 },
            needs: { loads: 50, people: 10 },
            reason: 'canary 11.6/12 failed (96.4 %) from 12 people, stable 1/13 (7.7 %) from 13 people: …',
          },
        } satisfies RemoteHealthDocument),
      ),
      http.get(`${API}/api/remotes/profile/rollout`, () => HttpResponse.json({ rollout: running })),
    );
    renderWithShell();
    const table = await screen.findByTestId('canary-evidence-profile');
    expect(within(table).getByText(/each side needs 50 loads from 10 people/)).toBeTruthy();
    expect(
      within(table)
        .getAllByRole('row')
        .slice(1)
        .map((row) => [...row.children].map((cell) => cell.textContent)),
    ).toEqual([
      ['Canary 1.1.0', '12', '11.6', '12'],
      ['Stable 1.0.0', '13', '1', '13'],
    ]);
  });

  it('says why an automatic rollback ended the canary, and shows an API refusal readably', async () => {
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry)),
      http.get(`${API}/api/admin/remotes/profile/health`, () =>
        HttpResponse.json({ ...health, versions: [] } satisfies RemoteHealthDocument),
      ),
      http.get(`${API}/api/remotes/profile/rollout`, () =>
        HttpResponse.json({
          rollout: {
            ...running,
            state: 'aborted',
            endedBy: 'atrium-api (automatic rollback)',
            reason: 'canary 21/21 failed (100.0 %), stable 0/25 (0.0 %)',
          },
        }),
      ),
      http.post(`${API}/api/remotes/profile/rollout`, () =>
        HttpResponse.json(
          {
            type: 'urn:atrium:problem:not_remote_owner',
            title: 'Not the owner',
            status: 403,
            code: 'not_remote_owner',
            detail: 'Remote "profile" is owned by "team-a".',
          },
          { status: 403, headers: { 'content-type': 'application/problem+json' } },
        ),
      ),
    );
    renderWithShell();
    expect((await screen.findByTestId('rollout-state-profile')).textContent).toBe(
      'Canary 1.1.0 was aborted by atrium-api (automatic rollback): canary 21/21 failed (100.0 %), stable 0/25 (0.0 %). Everybody gets 1.0.0.',
    );
    expect(await screen.findByText('No field reports in the last 3 hours.')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Start canary' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'Canary started failed. You are not allowed to do this. Remote "profile" is owned by "team-a". Ask an administrator for the role it needs.',
    );
  });
});
