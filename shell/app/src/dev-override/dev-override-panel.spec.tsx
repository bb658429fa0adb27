// @vitest-environment happy-dom
// @vitest-environment-options { "url": "http://localhost:4000/profile" }
import { ApiProblemError, type ApiClient } from '@atrium/sdk';
import { ADMIN_ROLE } from '@atrium/sdk/role-names';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { testRemote } from '../remote-loading/testing/test-remote';
import {
  type DevOverrideContext,
  type DevOverrideDecision,
  platformOrigins,
  storedDevOverrides,
  storeDevOverride,
} from './dev-override';
import { DevOverridePanel } from './dev-override-panel';

const remotes = [
  { ...testRemote('profile', { store: 'http://localhost:4100' }), requiredRoles: [] },
  { ...testRemote('admin', { store: 'http://localhost:4100' }), requiredRoles: [ADMIN_ROLE] },
];
const context: DevOverrideContext = {
  roles: ['atrium-user', 'atrium-developer', ADMIN_ROLE],
  config: { allowedOrigins: ['http://localhost:*'] },
  platform: platformOrigins(
    { apiBaseUrl: 'http://localhost:3000', oidc: { authority: 'http://localhost:8080/realms/atrium' } },
    remotes,
  ),
  remotes,
};
const profile = { remote: 'profile', url: 'http://localhost:5001/mf-manifest.json' };
const none: Promise<DevOverrideDecision> = Promise.resolve({ active: [], ignored: [] });

/** An API client whose `request` answers with `answer`. */
const apiAnswering = (answer: () => Promise<unknown>) => {
  const request = vi.fn(answer);
  return { request: request as unknown as ApiClient['request'] & typeof request };
};

/** Opens the page at `/profile`, with `?atrium-dev-override=<remote>@<url>` when `link` is given. */
function openAt(link?: { remote: string; url: string }) {
  const search = link ? `?atrium-dev-override=${encodeURIComponent(`${link.remote}@${link.url}`)}` : '';
  window.history.replaceState(null, '', `/profile${search}`);
}

let replace: ReturnType<typeof vi.fn>;
beforeEach(() => {
  replace = vi.fn();
  vi.spyOn(window.location, 'replace').mockImplementation(replace as never);
});
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
  window.sessionStorage.clear();
});

describe('DevOverridePanel, following a link', () => {
  it('names the origin and changes nothing until the person confirms; then the API approves it and it is kept', async () => {
    openAt(profile);
    const api = apiAnswering(() => Promise.resolve({}));
    render(<DevOverridePanel context={context} decision={none} api={api} />);

    const confirmation = screen.getByTestId('dev-override-confirm');
    expect(confirmation.textContent).toContain('Load profile in this tab from http://localhost:5001?');
    expect(api.request).not.toHaveBeenCalled();
    expect(storedDevOverrides()).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Load from http://localhost:5001' }));
    await vi.waitFor(() => expect(replace).toHaveBeenCalledWith('/profile'));
    expect(api.request).toHaveBeenCalledWith('POST', '/api/dev-overrides', profile);
    expect(storedDevOverrides()).toEqual([profile]);
  });

  it('forgets the link when the person cancels: nothing asked, nothing kept', () => {
    openAt(profile);
    const api = apiAnswering(() => Promise.resolve({}));
    render(
      <>
        <DevOverridePanel context={context} decision={none} api={api} />
        <main id="main" tabIndex={-1} />
      </>,
    );
    screen.getByRole('button', { name: 'Cancel' }).focus();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));

    expect(screen.queryByTestId('dev-override-confirm')).toBeNull();
    // The question went with its buttons: focus is on the page the person was on.
    expect(document.activeElement).toBe(screen.getByRole('main'));
    expect(window.location.search).toBe('');
    expect(api.request).not.toHaveBeenCalled();
    expect(storedDevOverrides()).toEqual([]);
  });

  it('refuses the release store, the admin remote and a foreign origin without asking to confirm', () => {
    const api = apiAnswering(() => Promise.resolve({}));
    for (const [link, reason] of [
      [
        { remote: 'profile', url: 'http://localhost:4100/profile/0.9.0/mf-manifest.json' },
        "http://localhost:4100 is the release store's origin, which no dev override loads from.",
      ],
      [
        { remote: 'admin', url: 'http://localhost:5002/mf-manifest.json' },
        'admin is a remote only administrators may see, which no dev override replaces.',
      ],
      [
        { remote: 'profile', url: 'http://evil.example/mf-manifest.json' },
        'http://evil.example is not an origin',
      ],
    ] as const) {
      openAt(link);
      render(<DevOverridePanel context={context} decision={none} api={api} />);
      expect(screen.getByTestId('dev-override-refused').textContent).toContain(reason);
      expect(screen.queryByTestId('dev-override-confirm')).toBeNull();
      cleanup();
    }
    expect(api.request).not.toHaveBeenCalled();
    expect(storedDevOverrides()).toEqual([]);
  });

  it("shows the API's refusal after the person confirmed, and keeps nothing", async () => {
    openAt(profile);
    const refusal = new ApiProblemError({
      status: 403,
      code: 'dev_override_refused',
      title: 'Dev override not allowed',
      type: 'about:blank',
      detail: 'no remote named profile is registered.',
    });
    const api = apiAnswering(() => Promise.reject(refusal));
    render(<DevOverridePanel context={context} decision={none} api={api} />);
    fireEvent.click(screen.getByRole('button', { name: 'Load from http://localhost:5001' }));

    expect((await screen.findByTestId('dev-override-refused')).textContent).toBe(
      'Dev override of profile refused: no remote named profile is registered. The active release is loaded.',
    );
    expect(storedDevOverrides()).toEqual([]);
    expect(replace).not.toHaveBeenCalled();
  });
});

describe('DevOverridePanel, the overrides of this tab', () => {
  it('shows the active one with a reset that withdraws the approvals too, and an ignored one saying why', async () => {
    openAt();
    const api = apiAnswering(() => Promise.resolve(undefined));
    const other = { remote: 'other', url: 'http://localhost:5009/mf-manifest.json' };
    const decision = Promise.resolve({
      active: [profile],
      ignored: [{ override: other, reason: 'the API has not approved it for this sign-in session' }],
    });
    render(<DevOverridePanel context={context} decision={decision} api={api} />);

    expect((await screen.findByTestId('dev-override-profile')).textContent).toContain(
      `profile is loaded from ${profile.url} in this tab only`,
    );
    expect(screen.getByTestId('dev-override-ignored').textContent).toContain(
      'A dev override of other stored in this tab is ignored: the API has not approved it for this sign-in session.',
    );
    fireEvent.click(screen.getByRole('button', { name: 'Reset to the active release' }));
    await vi.waitFor(() => expect(replace).toHaveBeenCalledWith('/profile'));
    expect(api.request).toHaveBeenCalledWith('DELETE', '/api/dev-overrides');
  });

  it('forgets an ignored override, and only that one, when the person asks', async () => {
    openAt();
    const other = { remote: 'other', url: 'http://localhost:5009/mf-manifest.json' };
    storeDevOverride(profile);
    storeDevOverride(other);
    const decision = Promise.resolve({
      active: [profile],
      ignored: [{ override: other, reason: 'the API has not approved it for this sign-in session' }],
    });
    render(
      <DevOverridePanel context={context} decision={decision} api={apiAnswering(() => Promise.resolve())} />,
    );
    fireEvent.click(await screen.findByRole('button', { name: 'Forget it' }));

    expect(storedDevOverrides()).toEqual([profile]);
    expect(replace).toHaveBeenCalledWith('/profile');
  });
});
