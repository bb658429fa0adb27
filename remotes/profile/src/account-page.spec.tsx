// @vitest-environment happy-dom
import type { MeDocument } from '@atrium/sdk';
import { renderFeature, setupApiServer } from '@atrium/sdk/testing';
import { cleanup, fireEvent, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { AccountPage } from './account-page';

// Same origin as the test page, so happy-dom's fetch sends no CORS preflight (CORS is the API's concern).
const API = window.location.origin;
const server = setupApiServer();
afterEach(cleanup);

const alice: MeDocument = {
  sub: 'f3c1',
  username: 'alice',
  name: 'Alice Liddell',
  email: 'alice@atrium.test',
  roles: ['atrium-user'],
  preferences: { theme: 'system' },
};

/** The text a screen reader reads as the element's description (its aria-describedby targets). */
function description(element: HTMLElement): string {
  return (element.getAttribute('aria-describedby') ?? '')
    .split(' ')
    .map((id) => document.getElementById(id)?.textContent ?? '')
    .join(' ');
}

describe('AccountPage', () => {
  it("shows the person's details from GET /api/me under a page title", async () => {
    server.use(http.get(`${API}/api/me`, () => HttpResponse.json(alice)));
    renderFeature(<AccountPage />, { location: '/profile' });

    expect(screen.getByRole('heading', { level: 1, name: 'Your account' })).toBeTruthy();
    expect(document.title).toBe('Your account · Atrium');
    expect(screen.getByRole('status').textContent).toBe('Loading your account…');
    expect((await screen.findByTestId('profile-email')).textContent).toBe('alice@atrium.test');
    expect(screen.getByTestId('profile-roles').textContent).toBe('atrium-user');
  });

  it('says "Not provided" when the identity provider has no name or e-mail (the API answers null)', async () => {
    server.use(http.get(`${API}/api/me`, () => HttpResponse.json({ ...alice, name: null, email: null })));
    renderFeature(<AccountPage />);

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
    const view = renderFeature(<AccountPage />);

    fireEvent.click(await screen.findByRole('radio', { name: 'Dark' }));
    fireEvent.click(screen.getByRole('button', { name: 'Save preferences' }));
    expect(screen.getByRole('button', { name: 'Saving…' }).getAttribute('aria-busy')).toBe('true');

    expect((await screen.findByText('Preferences saved')).getAttribute('class')).toBe('atrium-alert__text');
    expect(screen.getByRole('status').textContent).toBe('Preferences saved');
    expect(saved).toEqual({ theme: 'dark' });
    expect(view.themes).toEqual(['dark']);
    expect(screen.getByRole<HTMLInputElement>('radio', { name: 'Dark' }).checked).toBe(true);
  });

  it('shows the API validation message on the Theme field and says the preferences were not saved', async () => {
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
    const view = renderFeature(<AccountPage />);

    fireEvent.click(await screen.findByRole('button', { name: 'Save preferences' }));

    expect((await screen.findByRole('alert')).textContent).toBe(
      'Preferences were not saved. Invalid request. Theme must be one of system, light, dark.',
    );
    const group = screen.getByRole('group', { name: 'Theme' });
    expect(group.getAttribute('aria-invalid')).toBe('true');
    expect(description(group)).toBe('must be one of system, light, dark');
    expect(view.themes).toEqual([]);

    fireEvent.click(screen.getByRole('radio', { name: 'Light' }));
    expect(screen.queryByRole('alert')).toBeNull();
    expect(group.getAttribute('aria-invalid')).toBeNull();
  });

  it('says the API cannot be reached and offers Retry', async () => {
    let reachable = false;
    server.use(
      http.get(`${API}/api/me`, () => (reachable ? HttpResponse.json(alice) : HttpResponse.error())),
    );
    renderFeature(<AccountPage />);

    expect((await screen.findByRole('alert')).textContent).toContain(
      'Your account could not be loaded. The Atrium API could not be reached.',
    );
    reachable = true;
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect((await screen.findByTestId('profile-email')).textContent).toBe('alice@atrium.test');
  });
});
