// @vitest-environment happy-dom
import type { AdminRemotesDocument } from '@atrium/sdk';
import { renderFeature, setupApiServer } from '@atrium/sdk/testing';
import { cleanup, fireEvent, screen, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Feature } from './feature';
import { RemotesConsole } from './remotes-console';

const API = window.location.origin;
const server = setupApiServer();
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function registry(active: string, withdrawn: Record<string, string> = {}): AdminRemotesDocument {
  return {
    remotes: [
      {
        name: 'profile',
        title: 'Profile',
        path: '/profile',
        navOrder: 10,
        requiredRoles: [],
        owner: 'atrium-deployer',
        activeVersion: active,
        createdAt: '2026-11-22T10:00:00.000Z',
        updatedAt: '2026-11-22T10:05:00.000Z',
        versions: ['1.0.1', '1.0.0'].map((version) => ({
          version,
          manifestUrl: `http://localhost:4100/profile/${version}/mf-manifest.json`,
          integrity: `sha384-entry-${version}`,
          manifestIntegrity: `sha384-manifest-${version}`,
          shared: null,
          publishedBy: 'atrium-deployer',
          publishedAt: '2026-11-22T10:00:00.000Z',
          active: version === active,
          withdrawal:
            withdrawn[version] === undefined
              ? null
              : { at: '2026-11-23T09:00:00.000Z', by: 'ada', reason: withdrawn[version] },
          // 1.0.1 was published with --breaking.
          breaking: version === '1.0.1',
        })),
      },
    ],
  };
}

const renderWithShell = (children: React.ReactNode) =>
  renderFeature(children, {
    user: { username: 'ada', name: 'Ada Lovelace', email: undefined },
    roles: ['atrium-admin'],
    location: '/admin',
  });

describe('RemotesConsole', () => {
  it('lists each remote with its versions, publisher, the active one and those published as breaking', async () => {
    server.use(http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.1'))));
    renderWithShell(<RemotesConsole />);

    const card = await screen.findByTestId('remote-profile');
    expect(within(card).getByTestId('active-version').textContent).toBe('1.0.1');
    expect(within(card).getByTestId('version-1.0.1').textContent).toContain('active');
    expect(within(card).getByTestId('version-1.0.0').textContent).toContain('atrium-deployer');
    expect(within(card).getByTestId('version-1.0.1').textContent).toContain('breaking');
    expect(within(card).getByTestId('version-1.0.0').textContent).not.toContain('breaking');
    expect(within(card).queryByRole('button', { name: 'Activate 1.0.1' })).toBeNull();
  });

  it('activates an older version only after the confirmation, then shows the new active version', async () => {
    let active = '1.0.1';
    const activations: unknown[] = [];
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry(active))),
      http.put(`${API}/api/remotes/profile/active`, async ({ request }) => {
        const body = (await request.json()) as { version: string };
        activations.push(body);
        active = body.version;
        return HttpResponse.json({ ...registry(active).remotes[0], versions: undefined });
      }),
    );
    renderWithShell(<RemotesConsole />);

    const opener = await screen.findByRole('button', { name: 'Activate 1.0.0' });
    opener.focus();
    fireEvent.click(opener);
    expect(activations).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(activations).toEqual([]);
    // Closed, the dialog gives focus back to the button that opened it.
    expect(document.activeElement).toBe(opener);

    fireEvent.click(screen.getByRole('button', { name: 'Activate 1.0.0' }));
    expect(screen.getByText('Activate Profile 1.0.0?')).toBeTruthy();
    const dialogButtons = screen.getAllByRole('button', { name: 'Activate 1.0.0' });
    // Opened, the dialog has focus on its confirm button.
    expect(document.activeElement).toBe(dialogButtons.at(-1));
    fireEvent.click(dialogButtons[dialogButtons.length - 1]!);

    expect(await screen.findByText(/Profile 1.0.0 is now active/)).toBeTruthy();
    expect(activations).toEqual([{ version: '1.0.0' }]);
    await vi.waitFor(() => expect(screen.getByTestId('active-version').textContent).toBe('1.0.0'));
    // The button that opened the dialog is gone with the version's change: focus is on the outcome.
    expect(screen.queryByRole('button', { name: 'Activate 1.0.0' })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('status'));
    expect(document.activeElement?.textContent).toContain('Profile 1.0.0 is now active');
  });

  it('withdraws a version only with a reason, then shows it withdrawn with why and no action', async () => {
    const withdrawn: Record<string, string> = {};
    const requests: unknown[] = [];
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.1', withdrawn))),
      http.post(`${API}/api/remotes/profile/versions/1.0.0/withdrawal`, async ({ request }) => {
        const body = (await request.json()) as { reason: string };
        requests.push(body);
        withdrawn['1.0.0'] = body.reason;
        return HttpResponse.json(registry('1.0.1', withdrawn).remotes[0]!.versions[1]);
      }),
    );
    renderWithShell(<RemotesConsole />);

    fireEvent.click(await screen.findByRole('button', { name: 'Withdraw 1.0.0' }));
    expect(screen.getByText('Withdraw Profile 1.0.0?')).toBeTruthy();
    const confirm = () => screen.getAllByRole('button', { name: 'Withdraw 1.0.0' }).at(-1)!;
    // Opened, the dialog has focus on the field to fill in first.
    expect(document.activeElement).toBe(screen.getByLabelText('Reason'));
    // No reason, no withdrawal: the confirmation stays disabled.
    expect(confirm()).toHaveProperty('disabled', true);
    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: '  leaks data  ' } });
    fireEvent.click(confirm());

    expect(await screen.findByText(/Profile 1.0.0 is withdrawn/)).toBeTruthy();
    expect(requests).toEqual([{ reason: 'leaks data' }]);
    await vi.waitFor(() => expect(screen.getByTestId('version-1.0.0').textContent).toContain('withdrawn'));
    const row = screen.getByTestId('version-1.0.0');
    expect(row.textContent).toContain('leaks data (ada,');
    expect(within(row).queryByRole('button')).toBeNull();
    expect(document.activeElement?.textContent).toContain('Profile 1.0.0 is withdrawn');
  });

  it('says why a withdrawal was refused', async () => {
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.0'))),
      http.post(`${API}/api/remotes/profile/versions/1.0.1/withdrawal`, () =>
        HttpResponse.json(
          {
            type: 'urn:atrium:problem:version_in_use',
            title: 'Version is being served',
            status: 409,
            code: 'version_in_use',
            detail: 'Remote "profile" version 1.0.1 is the running canary: abort the canary first.',
          },
          { status: 409, headers: { 'Content-Type': 'application/problem+json' } },
        ),
      ),
    );
    renderWithShell(<RemotesConsole />);

    fireEvent.click(await screen.findByRole('button', { name: 'Withdraw 1.0.1' }));
    fireEvent.change(screen.getByLabelText('Reason'), { target: { value: 'broken' } });
    fireEvent.click(screen.getAllByRole('button', { name: 'Withdraw 1.0.1' }).at(-1)!);

    expect((await screen.findByRole('alert')).textContent).toContain('Profile 1.0.1 was not withdrawn');
  });

  it('says which shared package the shell does not provide when the API refuses an activation', async () => {
    const detail =
      'Remote "profile" 1.0.0 cannot run beside what is live: it needs react ^20.0.0, and the shell provides 19.3.1.';
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.1'))),
      http.put(`${API}/api/remotes/profile/active`, () =>
        HttpResponse.json(
          {
            type: 'urn:atrium:problem:shared_dependency_conflict',
            title: 'Shared dependencies do not match what is live',
            status: 409,
            code: 'shared_dependency_conflict',
            detail,
            conflicts: [
              {
                package: 'react',
                required: '^20.0.0',
                requiredBy: 'profile 1.0.0',
                provided: '19.3.1',
                providedBy: 'the shell',
              },
            ],
          },
          { status: 409, headers: { 'Content-Type': 'application/problem+json' } },
        ),
      ),
    );
    renderWithShell(<RemotesConsole />);

    fireEvent.click(await screen.findByRole('button', { name: 'Activate 1.0.0' }));
    const dialogButtons = screen.getAllByRole('button', { name: 'Activate 1.0.0' });
    fireEvent.click(dialogButtons[dialogButtons.length - 1]!);

    expect((await screen.findByRole('alert')).textContent).toBe(`Profile 1.0.0 was not activated. ${detail}`);
    expect(screen.getByTestId('active-version').textContent).toBe('1.0.1');
  });

  it('shows the API refusal inline and offers Retry when the registry cannot be loaded', async () => {
    let up = false;
    server.use(
      http.get(`${API}/api/admin/remotes`, () =>
        up
          ? HttpResponse.json(registry('1.0.0'))
          : HttpResponse.json(
              {
                type: 'about:blank',
                title: 'Forbidden',
                status: 403,
                code: 'insufficient_scope',
                detail: 'Needs atrium-admin.',
              },
              { status: 403, headers: { 'Content-Type': 'application/problem+json' } },
            ),
      ),
    );
    renderWithShell(<RemotesConsole />);

    expect((await screen.findByRole('alert')).textContent).toBe(
      'The registry could not be loaded. You are not allowed to do this. Needs atrium-admin. ' +
        'Ask an administrator for the role it needs.Retry',
    );
    up = true;
    fireEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByTestId('remote-profile')).toBeTruthy();
  });
});

describe('remote settings', () => {
  const problem = (status: number, body: Record<string, unknown>) =>
    HttpResponse.json(
      { type: `urn:atrium:problem:${String(body['code'])}`, title: 'Refused', status, ...body },
      { status, headers: { 'Content-Type': 'application/problem+json' } },
    );
  const field = (form: HTMLElement, label: string) => within(form).getByLabelText<HTMLInputElement>(label);
  const type = (form: HTMLElement, label: string, value: string) =>
    fireEvent.change(field(form, label), { target: { value } });

  it('shows who owns each remote', async () => {
    server.use(http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.1'))));
    renderWithShell(<RemotesConsole />);

    const card = await screen.findByTestId('remote-profile');
    expect(within(card).getByTestId('owner').textContent).toBe('atrium-deployer');
  });

  it('creates a remote with its settings and owner, then lists it', async () => {
    const created: unknown[] = [];
    let document = registry('1.0.1');
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(document)),
      http.post(`${API}/api/remotes`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        created.push(body);
        const remote = {
          ...body,
          navOrder: 20,
          activeVersion: null,
          createdAt: '2026-11-23T10:00:00.000Z',
          updatedAt: '2026-11-23T10:00:00.000Z',
        };
        const listed = { ...remote, versions: [] } as unknown as AdminRemotesDocument['remotes'][number];
        document = { remotes: [...document.remotes, listed] };
        return HttpResponse.json(remote, { status: 201 });
      }),
    );
    renderWithShell(<RemotesConsole />);

    fireEvent.click(await screen.findByRole('button', { name: 'New remote' }));
    const form = screen.getByRole('form', { name: 'New remote' });
    expect(field(form, 'Owner').value).toBe('atrium-deployer');
    type(form, 'Name', 'leave');
    type(form, 'Title', 'Time off');
    type(form, 'Path', '/time-off');
    type(form, 'Order', '20');
    type(form, 'Required roles', 'atrium-user, hr');
    fireEvent.click(within(form).getByRole('button', { name: 'Create remote' }));

    expect(
      await screen.findByText(/Time off \(leave\) created\. Its owner atrium-deployer can now publish/),
    ).toBeTruthy();
    expect(created).toEqual([
      {
        name: 'leave',
        title: 'Time off',
        path: '/time-off',
        navOrder: 20,
        requiredRoles: ['atrium-user', 'hr'],
        owner: 'atrium-deployer',
      },
    ]);
    expect(screen.queryByRole('form', { name: 'New remote' })).toBeNull();
    const card = await screen.findByTestId('remote-leave');
    expect(within(card).getByTestId('active-version').textContent).toBe('none');
  });

  it("shows the API's field errors beside each field and keeps what was typed", async () => {
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.1'))),
      http.post(`${API}/api/remotes`, () =>
        problem(400, {
          code: 'validation_failed',
          errors: [
            {
              field: 'path',
              message: 'must be a lowercase kebab-case path starting with /, such as /time-off',
            },
            { field: 'requiredRoles.1', message: 'must be a role name (letters, digits, _ . : -)' },
          ],
        }),
      ),
    );
    renderWithShell(<RemotesConsole />);

    fireEvent.click(await screen.findByRole('button', { name: 'New remote' }));
    const form = screen.getByRole('form', { name: 'New remote' });
    type(form, 'Name', 'leave');
    type(form, 'Title', 'Time off');
    type(form, 'Path', '/Time Off');
    type(form, 'Required roles', 'ok, n/a');
    fireEvent.click(within(form).getByRole('button', { name: 'Create remote' }));

    expect((await within(form).findByTestId('error-path')).textContent).toMatch(/kebab-case path/);
    expect(within(form).getByTestId('error-requiredRoles').textContent).toMatch(/must be a role name/);
    expect(field(form, 'Path').getAttribute('aria-invalid')).toBe('true');
    expect(field(form, 'Path').getAttribute('aria-describedby')).toContain(
      within(form).getByTestId('error-path').id,
    );
    expect(field(form, 'Title').getAttribute('aria-invalid')).toBeNull();
    expect(field(form, 'Path').value).toBe('/Time Off');
  });

  it('shows a taken name beside the name field', async () => {
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.1'))),
      http.post(`${API}/api/remotes`, () =>
        problem(409, { code: 'remote_exists', detail: 'A remote named "profile" already exists.' }),
      ),
    );
    renderWithShell(<RemotesConsole />);

    fireEvent.click(await screen.findByRole('button', { name: 'New remote' }));
    const form = screen.getByRole('form', { name: 'New remote' });
    type(form, 'Name', 'profile');
    type(form, 'Title', 'Profile again');
    type(form, 'Path', '/again');
    fireEvent.click(within(form).getByRole('button', { name: 'Create remote' }));

    expect((await within(form).findByTestId('error-name')).textContent).toContain('already exists');
  });

  it('changes only the settings the administrator edited, such as the required roles and the owner', async () => {
    const patches: unknown[] = [];
    let document = registry('1.0.1');
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(document)),
      http.patch(`${API}/api/remotes/profile`, async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        patches.push(body);
        const [profile] = document.remotes;
        const updated = { ...profile!, ...body };
        document = { remotes: [updated] };
        return HttpResponse.json({ ...updated, versions: undefined });
      }),
    );
    renderWithShell(<RemotesConsole />);

    fireEvent.click(await screen.findByRole('button', { name: 'Edit settings of Profile' }));
    const form = screen.getByRole('form', { name: 'Settings of Profile' });
    expect(field(form, 'Name').readOnly).toBe(true);
    expect(field(form, 'Title').value).toBe('Profile');
    expect(field(form, 'Order').value).toBe('10');
    type(form, 'Required roles', 'atrium-admin');
    type(form, 'Owner', 'team-b-deployer');
    fireEvent.click(within(form).getByRole('button', { name: 'Save settings' }));

    expect(await screen.findByText(/Profile saved/)).toBeTruthy();
    expect(patches).toEqual([{ requiredRoles: ['atrium-admin'], owner: 'team-b-deployer' }]);
    await vi.waitFor(() => expect(screen.getByTestId('owner').textContent).toBe('team-b-deployer'));
    // The form (and its focused Save button) closed: focus is on the outcome.
    expect(window.document.activeElement?.textContent).toContain('Profile saved');
  });

  it('gives focus back to the button that opened a settings form when the form is cancelled', async () => {
    server.use(http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.1'))));
    renderWithShell(<RemotesConsole />);

    for (const name of ['Edit settings of Profile', 'New remote']) {
      fireEvent.click(await screen.findByRole('button', { name }));
      expect(screen.queryByRole('button', { name })).toBeNull();
      fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
      expect(document.activeElement).toBe(screen.getByRole('button', { name }));
    }
  });

  it('says so when the API refuses the change as a whole', async () => {
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.1'))),
      http.patch(`${API}/api/remotes/profile`, () =>
        problem(403, { code: 'insufficient_scope', detail: 'The access token is valid but not sufficient.' }),
      ),
    );
    renderWithShell(<RemotesConsole />);

    fireEvent.click(await screen.findByRole('button', { name: 'Edit settings of Profile' }));
    const form = screen.getByRole('form', { name: 'Settings of Profile' });
    type(form, 'Title', 'Me');
    fireEvent.click(within(form).getByRole('button', { name: 'Save settings' }));

    expect((await within(form).findByRole('alert')).textContent).toBe(
      'Profile was not saved. You are not allowed to do this. The access token is valid but not sufficient. ' +
        'Ask an administrator for the role it needs.',
    );
    expect(field(form, 'Title').value).toBe('Me');
  });
});

describe('Feature', () => {
  it('names each tab in the document title and switches tabs through the shell', async () => {
    server.use(
      http.get(`${API}/api/admin/remotes`, () => HttpResponse.json(registry('1.0.1'))),
      http.get(`${API}/api/audit`, () => HttpResponse.json({ items: [], page: 1, pageSize: 20, total: 0 })),
    );
    // Defined by the build (the release version); the footer shows it.
    vi.stubGlobal('__RELEASE_VERSION__', '1.0.0-test');
    const view = renderWithShell(<Feature basePath="/admin" />);
    expect(screen.getByTestId('remote-release').textContent).toBe('admin 1.0.0-test');

    expect(screen.getByRole('heading', { level: 1, name: 'Registry console' })).toBeTruthy();
    expect(document.title).toBe('Remotes · Registry console · Atrium');
    expect(await screen.findByTestId('remote-profile')).toBeTruthy();

    fireEvent.click(screen.getByRole('link', { name: 'Audit log' }));
    expect(view.navigations).toEqual(['/admin/audit']);
    expect(await screen.findByText('Nothing has happened yet.')).toBeTruthy();
    expect(document.title).toBe('Audit log · Registry console · Atrium');
  });
});
