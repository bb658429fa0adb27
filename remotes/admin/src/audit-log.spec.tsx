// @vitest-environment happy-dom
import type { AdminRemotesDocument, AuditEntry, AuditPage } from '@atrium/sdk';
import { renderFeature, setupApiServer } from '@atrium/sdk/testing';
import { act, cleanup, fireEvent, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AuditLog } from './audit-log';
import { Feature } from './feature';

const API = window.location.origin;
const server = setupApiServer();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const registry: AdminRemotesDocument = {
  remotes: ['profile', 'admin'].map((name) => ({
    name,
    title: name === 'profile' ? 'Profile' : 'Admin',
    path: `/${name}`,
    navOrder: 10,
    requiredRoles: [],
    owner: 'atrium-deployer',
    activeVersion: '1.0.0',
    createdAt: '2026-11-22T10:00:00.000Z',
    updatedAt: '2026-11-22T10:00:00.000Z',
    versions: [],
  })),
};

const entry = (id: number, fields: Partial<AuditEntry> = {}): AuditEntry => ({
  id,
  actor: 'atrium-deployer',
  actorName: null,
  action: 'remote.version.published',
  target: `profile@1.0.${id}`,
  details: { remote: 'profile', version: `1.0.${id}` },
  occurredAt: '2026-11-22T10:00:00.000Z',
  ...fields,
});

/**
 * Answers `GET /api/audit` with `page(query)` and the registry's list, and keeps each audit query asked
 * (its parameters, pageSize left out).
 */
function answer(
  page: (query: URLSearchParams) => AuditPage = () => ({ items: [], pageSize: 20, nextCursor: null }),
) {
  const asked: string[] = [];
  server.use(
    http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry)),
    http.get(`${API}/api/audit`, ({ request }) => {
      const query = new URL(request.url).searchParams;
      expect(query.get('pageSize')).toBe('20');
      query.delete('pageSize');
      asked.push(decodeURIComponent(query.toString()));
      return HttpResponse.json(page(query));
    }),
  );
  return asked;
}

const renderAt = (location: string, ui = <AuditLog />) =>
  renderFeature(ui, {
    user: { username: 'ada', name: 'Ada Lovelace', email: undefined },
    roles: ['atrium-admin'],
    location,
  });

const form = () => screen.getByRole('form', { name: 'Filter the audit log' });
const input = (label: string) => within(form()).getByLabelText<HTMLInputElement>(label);

describe('AuditLog', () => {
  it('pages back in time with Older, following the cursor, and returns with Newer', async () => {
    const asked = answer((query) => {
      const first = query.get('before') === null;
      return {
        items: [
          first
            ? entry(2, {
                actor: 'ada',
                actorName: 'Ada Lovelace',
                action: 'remote.version.activated',
                target: 'profile@1.0.1',
                details: { remote: 'profile', version: '1.0.1', previousVersion: '1.0.0' },
              })
            : entry(1),
        ],
        pageSize: 20,
        nextCursor: first ? 'cursor+/2' : null,
      };
    });
    renderAt('/admin/audit');

    expect(await screen.findByText('Page 1')).toBeTruthy();
    // What happened in words, its code in the tooltip.
    expect(screen.getByText('Activated version 1.0.1 (was 1.0.0)').getAttribute('title')).toBe(
      'remote.version.activated',
    );
    expect(screen.getByRole('region', { name: 'Audit log entries, newest first' })).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Newer' }).disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Older' }));
    expect(await screen.findByText('Page 2')).toBeTruthy();
    expect(screen.getByText('Published version 1.0.1')).toBeTruthy();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Older' }).disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Newer' }));
    expect(await screen.findByText('Page 1')).toBeTruthy();
    expect(asked).toEqual(['', 'before=cursor+/2', '']);
  });

  it('names each person by the name they had when the entry was written, their id in the tooltip and read with it; a client by its id', async () => {
    answer(() => ({
      items: [
        entry(4, { actor: 'grace', actorName: 'Grace Hopper' }),
        entry(3, { actor: 'ada', actorName: 'Ada Lovelace' }),
        // Written before names were kept: the signed-in person is still named, others by id.
        entry(2, { actor: 'ada', actorName: null }),
        entry(1, { actor: 'linus', actorName: null }),
        entry(0, { actor: 'service-account-atrium-deployer', actorName: null }),
      ],
      pageSize: 20,
      nextCursor: null,
    }));
    renderAt('/admin/audit');

    await screen.findByTestId('audit-table');
    const who = screen
      .getAllByRole('row')
      .slice(1)
      .map((row) => within(row).getAllByRole('cell')[1]!);
    expect(who.map((cell) => cell.textContent)).toEqual([
      'Grace Hopper, grace',
      'Ada Lovelace (you), ada',
      'Ada Lovelace (you), ada',
      'linus',
      'service-account-atrium-deployer',
    ]);
    expect(within(who[0]!).getByTitle('grace').textContent).toBe('Grace Hopper, grace');
    expect(within(who[1]!).getByTitle('ada')).toBeTruthy();
    expect(within(who[3]!).queryByTitle('linus')).toBeNull();
  });

  it("asks the API for the address's filters and shows them in the form", async () => {
    const asked = answer();
    renderAt(
      '/admin/audit?actor=grace&action=remote.version.activated&remote=profile&from=2026-11-01&to=2026-11-30',
    );

    expect((await screen.findByTestId('audit-empty')).textContent).toBe(
      'No entries match these filters (grace, Activated a version, profile, from 2026-11-01, until 2026-11-30).',
    );
    // The days in the person's time zone: from the start of the first to the start of the day after the last.
    expect(asked).toEqual([
      `actor=grace&action=remote.version.activated&remote=profile&from=${new Date(2026, 10, 1).toISOString()}&to=${new Date(2026, 11, 1).toISOString()}`,
    ]);
    expect(input('Person (user name)').value).toBe('grace');
    expect(within(form()).getByLabelText<HTMLSelectElement>('Action').value).toBe('remote.version.activated');
    expect(within(form()).getByLabelText<HTMLSelectElement>('Remote').value).toBe('profile');
    expect(input('From').value).toBe('2026-11-01');
    expect(input('To').value).toBe('2026-11-30');
    expect(screen.queryByTestId('audit-filter-problems')).toBeNull();
  });

  it('puts the filters in the address, starts again at page 1 and asks the API for them', async () => {
    const asked = answer((query) => ({
      items: [entry(query.get('before') === null ? 2 : 1)],
      pageSize: 20,
      nextCursor: query.get('before') === null ? 'older' : null,
    }));
    const view = renderAt('/admin/audit');
    fireEvent.click(await screen.findByRole('button', { name: 'Older' }));
    expect(await screen.findByText('Page 2')).toBeTruthy();

    fireEvent.change(input('Person (user name)'), { target: { value: ' ada ' } });
    fireEvent.change(within(form()).getByLabelText('Action'), {
      target: { value: 'remote.rollout.rolled_back' },
    });
    // The registry's remotes are the choices.
    await within(form()).findByRole('option', { name: 'Admin (admin)' });
    fireEvent.change(within(form()).getByLabelText('Remote'), { target: { value: 'admin' } });
    fireEvent.click(screen.getByRole('button', { name: 'Show entries' }));

    expect(await screen.findByText('Page 1')).toBeTruthy();
    expect(view.navigations).toEqual([
      '/admin/audit?actor=ada&action=remote.rollout.rolled_back&remote=admin',
    ]);
    expect(window.location.search).toBe('?actor=ada&action=remote.rollout.rolled_back&remote=admin');
    expect(asked).toEqual(['', 'before=older', 'actor=ada&action=remote.rollout.rolled_back&remote=admin']);

    // Clearing them goes back to the whole log, at its first page.
    fireEvent.click(screen.getByRole('button', { name: 'Clear filters' }));
    expect(await screen.findByText('Page 1')).toBeTruthy();
    expect(view.navigations.at(-1)).toBe('/admin/audit');
    expect(input('Person (user name)').value).toBe('');
    expect(asked.at(-1)).toBe('');
  });

  it('follows Back to the filters of the address before', async () => {
    const asked = answer();
    renderAt('/admin/audit?actor=ada');
    await screen.findByTestId('audit-empty');
    fireEvent.change(input('Person (user name)'), { target: { value: 'grace' } });
    fireEvent.click(screen.getByRole('button', { name: 'Show entries' }));
    await vi.waitFor(() => expect(asked).toEqual(['actor=ada', 'actor=grace']));

    act(() => window.history.back());
    expect(window.location.search).toBe('?actor=ada');
    await vi.waitFor(() => expect(asked.at(-1)).toBe('actor=ada'));
    expect(input('Person (user name)').value).toBe('ada');
  });

  it('says which values of the address it cannot use and shows the log without them', async () => {
    const asked = answer();
    renderAt(
      `/admin/audit?actor=ada&action=remote.exploded&remote=Pro-file&from=2026-02-30&to=${'x'.repeat(100)}`,
    );

    const problems = await screen.findByTestId('audit-filter-problems');
    expect(
      within(problems)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual([
      '“remote.exploded” is not something the audit log records.',
      '“Pro-file” is not the name of a remote.',
      'The first day, “2026-02-30”, is not a date such as 2026-11-23.',
      `The last day, “${'x'.repeat(60)}…”, is not a date such as 2026-11-23.`,
    ]);
    expect(problems.textContent).toContain('The entries below are shown without it.');
    await screen.findByTestId('audit-empty');
    expect(asked).toEqual(['actor=ada']);

    cleanup();
    const later = answer();
    renderAt('/admin/audit?from=2026-11-30&to=2026-11-01');
    expect((await screen.findByTestId('audit-filter-problems')).textContent).toContain(
      'The last day (2026-11-01) is before the first day (2026-11-30).',
    );
    await screen.findByTestId('audit-empty');
    expect(later).toEqual([`from=${new Date(2026, 10, 30).toISOString()}`]);
  });

  it("shows the API's refusal of a Keycloak event it does not know as a sentence, with Retry", async () => {
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry)),
      http.get(`${API}/api/audit`, () =>
        HttpResponse.json(
          {
            type: 'https://atrium.dev/problems/validation_failed',
            title: 'Validation failed',
            status: 400,
            code: 'validation_failed',
            detail: 'The request is not valid.',
            errors: [{ field: 'action', message: "must be one of the platform's actions" }],
          },
          { status: 400, headers: { 'content-type': 'application/problem+json' } },
        ),
      ),
    );
    renderAt('/admin/audit?action=keycloak.NOT-AN-EVENT');
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The audit log could not be loaded');
    expect(within(alert).getByRole('button', { name: 'Retry' })).toBeTruthy();
    // The form still offers the action the address named, by its words.
    expect(within(form()).getByRole('option', { name: 'Sign-in service: NOT-AN-EVENT' })).toBeTruthy();
  });
});

describe('Feature: the Audit log tab', () => {
  it('drops the filters when pressed on a filtered log', async () => {
    const asked = answer();
    vi.stubGlobal('__RELEASE_VERSION__', '1.0.0-test');
    const view = renderAt('/admin/audit?actor=ada', <Feature basePath="/admin" />);
    await screen.findByTestId('audit-empty');

    fireEvent.click(screen.getByRole('link', { name: 'Audit log' }));
    expect(await screen.findByText('Nothing has happened yet.')).toBeTruthy();
    expect(view.navigations).toEqual(['/admin/audit']);
    expect(asked).toEqual(['actor=ada', '']);
    expect(input('Person (user name)').value).toBe('');
  });
});
