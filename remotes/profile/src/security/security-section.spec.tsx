// @vitest-environment happy-dom
import {
  AccountActionsProvider,
  AtriumProvider,
  createApiClient,
  type AccountActionResult,
  type AccountCredentials,
  type AccountSessions,
  type AtriumContextValue,
} from '@atrium/sdk';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatTime } from './format-time';
import { SecuritySection } from './security-section';

const API = window.location.origin;
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
});
afterAll(() => server.close());

const session = (id: string, current: boolean) => ({
  id,
  ipAddress: '127.0.0.1',
  startedAt: '2026-11-23T10:00:00.000Z',
  lastAccessAt: '2026-11-23T11:00:00.000Z',
  applications: ['atrium-shell'],
  current,
});

function renderSection(lastResult: AccountActionResult | null = null) {
  const signOut = vi.fn(() => Promise.resolve());
  const run = vi.fn(() => Promise.resolve());
  const requestAccess = vi.fn(() => Promise.resolve());
  const context: AtriumContextValue = {
    user: { sub: 's1', username: 'alice', name: 'Alice', email: 'alice@atrium.test', roles: ['atrium-user'] },
    api: createApiClient({
      baseUrl: API,
      authorize: () => Promise.resolve({ authorization: 'DPoP token', dpop: 'header.payload.signature' }),
      renewAuthorization: () => Promise.resolve(),
    }),
    theme: 'system',
    setTheme: vi.fn(),
    signOut,
    navigate: vi.fn(),
    location: '/profile',
  };
  render(
    <AtriumProvider value={context}>
      <AccountActionsProvider value={{ run, requestAccess, lastResult, dismissResult: vi.fn() }}>
        <SecuritySection />
      </AccountActionsProvider>
    </AtriumProvider>,
  );
  return { signOut, run, requestAccess };
}

const PASSWORD = {
  id: 'pw-1',
  type: 'password',
  // Keycloak's label of an imported password is for whoever imported it; the person reads "Password".
  label: 'Demo password (README), imported as a hash',
  createdAt: '2026-11-20T10:00:00.000Z',
} as const;
const PASSKEY = {
  id: 'passkey-1',
  type: 'webauthn-passwordless',
  label: 'Work laptop',
  createdAt: '2026-11-21T10:00:00.000Z',
} as const;
const APP = { id: 'otp-1', type: 'otp', label: 'Phone', createdAt: '2026-11-22T10:00:00.000Z' } as const;

const accessRequired = () =>
  HttpResponse.json(
    {
      type: 'urn:atrium:problem:account_access_required',
      title: 'Your permission at Keycloak is needed',
      status: 403,
      detail:
        'Atrium acts on your account at Keycloak only with your own permission (none in this session yet).',
      code: 'account_access_required',
    },
    { status: 403, headers: { 'content-type': 'application/problem+json' } },
  );

const unavailable = () =>
  HttpResponse.json(
    {
      type: 'urn:atrium:problem:identity_admin_unavailable',
      title: 'Account service unavailable',
      status: 503,
      detail: 'The account service (Keycloak) is unavailable; nothing was changed. Try again shortly.',
      code: 'identity_admin_unavailable',
    },
    { status: 503, headers: { 'content-type': 'application/problem+json' } },
  );

function defaultHandlers(
  sessions: AccountSessions = { sessions: [session('a', true), session('b', false)] },
  credentials: AccountCredentials = { credentials: [PASSWORD, PASSKEY, APP] },
) {
  server.use(
    http.get(`${API}/api/account/credentials`, () => HttpResponse.json(credentials)),
    http.get(`${API}/api/account/sessions`, () => HttpResponse.json(sessions)),
    http.get(`${API}/api/account/activity`, () =>
      HttpResponse.json({
        items: [
          {
            type: 'LOGIN_ERROR',
            at: '2026-11-23T09:00:00.000Z',
            ipAddress: '10.0.0.9',
            application: 'atrium-shell',
            error: 'invalid_user_credentials',
            credential: null,
          },
          {
            type: 'UPDATE_CREDENTIAL',
            at: '2026-11-23T08:00:00.000Z',
            ipAddress: null,
            application: 'atrium-shell',
            error: null,
            credential: 'otp',
          },
        ],
      }),
    ),
  );
}

describe('SecuritySection', () => {
  it("asks the shell for Keycloak's actions and shows how the last one ended", async () => {
    defaultHandlers();
    const { run } = renderSection({ action: 'CONFIGURE_TOTP', status: 'cancelled' });
    expect(screen.getByTestId('security-action-result').textContent).toContain(
      'Nothing changed: you cancelled "set up an authenticator app"',
    );
    fireEvent.click(screen.getByTestId('security-add-passkey'));
    expect(run).toHaveBeenCalledWith('webauthn-register-passwordless');
    expect(screen.getByTestId<HTMLButtonElement>('security-change-password').disabled).toBe(true);
    // The other cards finished loading before the page goes away.
    await screen.findAllByTestId('security-credential');
    await screen.findAllByTestId('security-event');
    await screen.findAllByTestId('security-session');
  });

  it('lists sessions and activity, and signs out the others', async () => {
    defaultHandlers();
    let signedOut = false;
    server.use(
      http.post(`${API}/api/account/sessions/sign-out-others`, () => {
        signedOut = true;
        return HttpResponse.json({ signedOut: 1 });
      }),
    );
    renderSection();
    await screen.findAllByTestId('security-credential');
    expect(await screen.findAllByTestId('security-session')).toHaveLength(2);
    const events = await screen.findAllByTestId('security-event');
    expect(events.map((event) => event.querySelector('strong')?.textContent)).toEqual([
      'Failed sign-in',
      'Sign-in method changed (authenticator app)',
    ]);
    defaultHandlers({ sessions: [session('a', true)] });
    fireEvent.click(screen.getByTestId('security-sign-out-others'));
    expect((await screen.findByTestId('security-signed-out')).textContent).toBe(
      'Signed out 1 other session.',
    );
    expect(signedOut).toBe(true);
    await vi.waitFor(() => expect(screen.getAllByTestId('security-session')).toHaveLength(1));
    expect(screen.getByTestId<HTMLButtonElement>('security-sign-out-others').disabled).toBe(true);
    // The button can do nothing more: focus is on what it did.
    expect(document.activeElement).toBe(screen.getByTestId('security-signed-out'));
  });

  it("deletes only after the username is typed, through Keycloak's own action, which the API never runs", async () => {
    defaultHandlers();
    const { run, signOut } = renderSection();
    await screen.findAllByTestId('security-credential');
    await screen.findAllByTestId('security-event');
    await screen.findAllByTestId('security-session');
    const button = screen.getByTestId<HTMLButtonElement>('security-delete-account');
    const input = screen.getByTestId('security-delete-confirmation');
    fireEvent.change(input, { target: { value: 'Alice' } });
    expect(button.disabled).toBe(true);
    fireEvent.change(input, { target: { value: 'alice' } });
    fireEvent.click(button);
    // Keycloak asks for the password and the confirmation, then deletes: the page is leaving for it.
    expect(run).toHaveBeenCalledWith('delete_account');
    expect(button.disabled).toBe(true);
    expect(signOut).not.toHaveBeenCalled();
  });

  it('says the account was not deleted when the person cancelled at Keycloak, in the deletion card only', async () => {
    defaultHandlers();
    renderSection({ action: 'delete_account', status: 'cancelled' });
    const shown = screen.getByTestId('security-delete-result');
    expect(shown.textContent).toContain('Your account was not deleted: you cancelled.');
    expect(shown.getAttribute('role')).toBe('status');
    expect(screen.queryByTestId('security-action-result')).toBeNull();
    await screen.findAllByTestId('security-credential');
    await screen.findAllByTestId('security-event');
    await screen.findAllByTestId('security-session');
  });

  it("asks for the person's permission at Keycloak when the API may not act for them yet, then lists", async () => {
    defaultHandlers();
    server.use(
      http.get(`${API}/api/account/credentials`, accessRequired),
      http.get(`${API}/api/account/sessions`, accessRequired),
    );
    const { requestAccess } = renderSection();
    const needed = await screen.findAllByTestId('security-access-needed');
    expect(needed).toHaveLength(2);
    expect(needed[0]!.textContent).toContain('your sign-in methods');
    expect(needed[1]!.textContent).toContain('where you are signed in');
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    // Security activity needs no permission of the person's: Keycloak's events are the API's to read.
    await screen.findAllByTestId('security-event');
    const [first] = screen.getAllByTestId<HTMLButtonElement>('security-continue-access');
    fireEvent.click(first!);
    expect(requestAccess).toHaveBeenCalledTimes(1);
    expect(first!.disabled).toBe(true);
  });

  it('lists the sign-in methods with their labels and dates, and removes a second factor through Keycloak', async () => {
    defaultHandlers();
    const { run } = renderSection();
    expect(screen.getByText('Loading your sign-in methods…')).toBeDefined();
    const items = await screen.findAllByTestId('security-credential');
    expect(items.map((item) => [item.dataset['type'], item.querySelector('strong')?.textContent])).toEqual([
      ['password', 'Password'],
      ['webauthn-passwordless', 'Work laptop'],
      ['otp', 'Phone'],
    ]);
    expect(items[0]!.textContent).not.toContain('Demo');
    expect(items[1]!.textContent).toContain('Passkey');
    expect(items[2]!.textContent).toContain(`Added ${formatTime(APP.createdAt)}`);
    expect(items[2]!.textContent).toContain(
      `Added ${new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(APP.createdAt))}`,
    );
    // The password is listed, never offered for removal; each second factor is.
    expect(within(items[0]!).queryByRole('button')).toBeNull();
    expect(screen.queryByTestId('security-no-factors')).toBeNull();

    fireEvent.click(screen.getByRole('button', { name: 'Remove authenticator app Phone' }));
    expect(run).toHaveBeenCalledWith({
      name: 'delete_credential',
      credentialId: 'otp-1',
      credentialType: 'otp',
    });
    // The page is leaving for Keycloak: nothing else can be started meanwhile.
    for (const button of screen.getAllByTestId('security-remove-credential'))
      expect((button as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId<HTMLButtonElement>('security-setup-totp').disabled).toBe(true);
    await screen.findAllByTestId('security-event');
    await screen.findAllByTestId('security-session');
  });

  it('says how a removal ended, in words for the kind of credential', async () => {
    defaultHandlers();
    const removal = (credentialType: 'otp' | 'webauthn-passwordless' | 'webauthn') =>
      ({ name: 'delete_credential', credentialId: 'x-1', credentialType }) as const;
    const cases: [AccountActionResult, string][] = [
      [{ action: removal('otp'), status: 'success' }, 'Your authenticator app was removed.'],
      [{ action: removal('webauthn-passwordless'), status: 'success' }, 'Your passkey was removed.'],
      [
        { action: removal('webauthn-passwordless'), status: 'cancelled' },
        'Nothing changed: you cancelled "remove your passkey".',
      ],
      [
        { action: removal('webauthn'), status: 'error' },
        '"Remove your security key" did not complete. Nothing changed; please try again.',
      ],
    ];
    for (const [result, message] of cases) {
      renderSection(result);
      const shown = screen.getByTestId('security-action-result');
      expect(shown.textContent).toContain(message);
      expect(shown.getAttribute('role')).toBe(result.status === 'error' ? 'alert' : 'status');
      await screen.findAllByTestId('security-credential');
      await screen.findAllByTestId('security-event');
      await screen.findAllByTestId('security-session');
      cleanup();
    }
  });

  it('says when there is no second factor yet, and offers no removal', async () => {
    defaultHandlers(undefined, { credentials: [PASSWORD] });
    renderSection();
    expect((await screen.findByTestId('security-no-factors')).textContent).toContain(
      'No passkey or authenticator app yet.',
    );
    expect(screen.getAllByTestId('security-credential')).toHaveLength(1);
    expect(screen.queryByTestId('security-remove-credential')).toBeNull();
    await screen.findAllByTestId('security-event');
    await screen.findAllByTestId('security-session');
  });

  it('shows why the sign-in methods could not be loaded, and loads them on retry', async () => {
    defaultHandlers();
    let calls = 0;
    server.use(
      http.get(`${API}/api/account/credentials`, () => {
        calls += 1;
        return calls === 1 ? unavailable() : HttpResponse.json({ credentials: [PASSWORD, APP] });
      }),
    );
    renderSection();
    const card = screen.getByRole('region', { name: 'Signing in' });
    const alert = await within(card).findByRole('alert');
    expect(alert.textContent).toContain(
      'Your sign-in methods could not be loaded. The account service (Keycloak) is unavailable',
    );
    expect(screen.queryByTestId('security-credential')).toBeNull();
    fireEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await screen.findAllByTestId('security-credential')).toHaveLength(2);
    expect(within(card).queryByRole('alert')).toBeNull();
    expect(calls).toBe(2);
    await screen.findAllByTestId('security-event');
    await screen.findAllByTestId('security-session');
  });
});
