// @vitest-environment happy-dom
import {
  AccountActionsProvider,
  AtriumProvider,
  createApiClient,
  type AccountActionResult,
  type AccountSessions,
  type AtriumContextValue,
} from '@atrium/sdk';
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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
      <AccountActionsProvider value={{ run, lastResult, dismissResult: vi.fn() }}>
        <SecuritySection />
      </AccountActionsProvider>
    </AtriumProvider>,
  );
  return { signOut, run };
}

function defaultHandlers(
  sessions: AccountSessions = { sessions: [session('a', true), session('b', false)] },
) {
  server.use(
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
  });

  it('deletes only after the username is typed, then signs out; a refusal is shown in words', async () => {
    defaultHandlers();
    const bodies: unknown[] = [];
    let answer: 'refuse' | 'accept' = 'refuse';
    server.use(
      http.post(`${API}/api/account/deletion`, async ({ request }) => {
        bodies.push(await request.json());
        return answer === 'refuse'
          ? HttpResponse.json(
              {
                type: 'urn:atrium:problem:identity_admin_unavailable',
                title: 'Account service unavailable',
                status: 503,
                detail:
                  'The account service (Keycloak) is unavailable; nothing was changed. Try again shortly.',
                code: 'identity_admin_unavailable',
              },
              { status: 503, headers: { 'content-type': 'application/problem+json' } },
            )
          : new HttpResponse(null, { status: 204 });
      }),
    );
    const { signOut } = renderSection();
    await screen.findAllByTestId('security-event');
    await screen.findAllByTestId('security-session');
    const button = screen.getByTestId<HTMLButtonElement>('security-delete-account');
    const input = screen.getByTestId('security-delete-confirmation');
    fireEvent.change(input, { target: { value: 'Alice' } });
    expect(button.disabled).toBe(true);
    fireEvent.change(input, { target: { value: 'alice' } });
    fireEvent.click(button);
    const section = screen.getByRole('region', { name: 'Delete the account' });
    expect((await within(section).findByRole('alert')).textContent).toContain('nothing was changed');
    expect(signOut).not.toHaveBeenCalled();
    answer = 'accept';
    fireEvent.click(button);
    await vi.waitFor(() => expect(signOut).toHaveBeenCalled());
    expect(bodies).toEqual([{ confirmation: 'alice' }, { confirmation: 'alice' }]);
  });
});
