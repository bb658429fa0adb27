// @vitest-environment happy-dom
import { AtriumProvider, createApiClient, type AtriumContextValue, type MeDocument } from '@atrium/sdk';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AccountPage } from './account-page';

// Same origin as the test page, so happy-dom's fetch sends no CORS preflight (CORS is the API's concern).
const API = window.location.origin;
const server = setupServer();
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => {
  cleanup();
  server.resetHandlers();
});
afterAll(() => server.close());

const alice: MeDocument = {
  sub: 'f3c1',
  username: 'alice',
  name: 'Alice Liddell',
  email: 'alice@atrium.test',
  roles: ['atrium-user'],
  preferences: { theme: 'system' },
};

function renderPage() {
  const setTheme = vi.fn();
  const context: AtriumContextValue = {
    user: {
      sub: alice.sub,
      username: alice.username,
      name: alice.name ?? alice.username,
      email: alice.email ?? undefined,
      roles: alice.roles,
    },
    api: createApiClient({
      baseUrl: API,
      // The shell's proofs are tested in the sdk and the shell; these pages only need requests to go out.
      authorize: () => Promise.resolve({ authorization: 'DPoP token', dpop: 'header.payload.signature' }),
      renewAuthorization: () => Promise.resolve(),
    }),
    theme: 'system',
    setTheme,
    signOut: () => Promise.resolve(),
    navigate: vi.fn(),
    location: '/profile',
  };
  render(
    <AtriumProvider value={context}>
      <AccountPage />
    </AtriumProvider>,
  );
  return { setTheme };
}

describe('AccountPage', () => {
  it("shows the person's details from GET /api/me", async () => {
    server.use(http.get(`${API}/api/me`, () => HttpResponse.json(alice)));
    renderPage();

    expect(screen.getByRole('heading', { name: 'Your account' })).toBeTruthy();
    expect((await screen.findByTestId('profile-email')).textContent).toBe('alice@atrium.test');
    expect(screen.getByTestId('profile-roles').textContent).toBe('atrium-user');
  });

  it('says "Not provided" when the identity provider has no name or e-mail (the API answers null)', async () => {
    server.use(http.get(`${API}/api/me`, () => HttpResponse.json({ ...alice, name: null, email: null })));
    renderPage();

    expect((await screen.findByTestId('profile-email')).textContent).toBe('Not provided');
    expect(screen.getByTestId('profile-name').textContent).toBe('Not provided');
  });

  it('saves the theme, applies it through the shell and confirms', async () => {
    let saved: unknown;
    server.use(
      http.get(`${API}/api/me`, () => HttpResponse.json(alice)),
      http.put(`${API}/api/me/preferences`, async ({ request }) => {
        saved = await request.json();
        return HttpResponse.json({ ...alice, preferences: { theme: 'dark' } });
      }),
    );
    const { setTheme } = renderPage();

    fireEvent.click(await screen.findByRole('radio', { name: 'Dark' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save preferences' }));

    expect(await screen.findByText('Preferences saved')).toBeTruthy();
    expect(saved).toEqual({ theme: 'dark' });
    expect(setTheme).toHaveBeenCalledWith('dark');
  });

  it('shows the API validation message next to the Theme field', async () => {
    server.use(
      http.get(`${API}/api/me`, () => HttpResponse.json(alice)),
      http.put(`${API}/api/me/preferences`, () =>
        HttpResponse.json(
          {
            type: 'about:blank',
            title: 'Invalid request',
            status: 400,
            code: 'validation_failed',
            errors: [{ field: 'theme', message: 'must be one of system, light, dark' }],
          },
          { status: 400, headers: { 'Content-Type': 'application/problem+json' } },
        ),
      ),
    );
    const { setTheme } = renderPage();

    fireEvent.click(await screen.findByRole('button', { name: 'Save preferences' }));

    expect((await screen.findByRole('alert')).textContent).toBe('must be one of system, light, dark');
    expect(screen.getByRole('group', { name: 'Theme' }).getAttribute('aria-invalid')).toBe('true');
    expect(setTheme).not.toHaveBeenCalled();
  });

  it('offers Retry when the API cannot be reached', async () => {
    let reachable = false;
    server.use(
      http.get(`${API}/api/me`, () => (reachable ? HttpResponse.json(alice) : HttpResponse.error())),
    );
    renderPage();

    expect((await screen.findByRole('alert')).textContent).toContain('could not reach the Atrium API');
    reachable = true;
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect((await screen.findByTestId('profile-email')).textContent).toBe('alice@atrium.test');
  });
});
