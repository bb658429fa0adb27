import { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { releaseHashes } from '@atrium/test-support/releases';
import { REMOTE_NAME_RULE } from './remote-rules.js';
import { RemoteVersion } from './remote-version.entity.js';
import { Remote } from './remote.entity.js';
import type { RemoteDetail } from './registry.service.js';

interface RemoteEntryBody {
  name: string;
  version: string;
  entry: string;
  integrity: string;
  manifestIntegrity: string;
}

/** A remote as the API's JSON carries it (the service's own type, minus the timestamps the tests ignore). */
type RemoteDetailBody = Omit<RemoteDetail, 'createdAt' | 'updatedAt'>;

interface AuditBody {
  items: Array<{ actor: string; action: string; target: string; details: Record<string, unknown> }>;
  total: number;
  pageSize: number;
}

describe('registry of remotes on SQLite', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  /** The feature teams' deployer, owner of time-off. */
  let publisher: string;
  /** Another team's deployer: a publisher, but owner of nothing here unless an admin says so. */
  let otherPublisher: string;
  /** The platform pipeline: publisher and administrator, owner of the remotes it creates for itself. */
  let platform: string;
  let admin: string;
  let user: string;

  const serviceAccount = (clientId: string, roles: string[]) =>
    issuer.mint({
      claims: {
        sub: `sa-${clientId}`,
        preferred_username: `service-account-${clientId}`,
        azp: clientId,
        realm_access: { roles },
      },
    });

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer.issuer,
      // A second feature team's deployer, beside the realm's own clients.
      OIDC_ALLOWED_CLIENTS: 'atrium-shell,atrium-deployer,atrium-platform,team-b-deployer',
    });
    await api.waitForIssuer();
    publisher = await serviceAccount('atrium-deployer', ['remote-publisher']);
    otherPublisher = await serviceAccount('team-b-deployer', ['remote-publisher']);
    platform = await serviceAccount('atrium-platform', ['remote-publisher', 'atrium-admin']);
    admin = await issuer.mint({
      claims: {
        sub: 'ada',
        preferred_username: 'ada',
        azp: 'atrium-shell',
        realm_access: { roles: ['atrium-user', 'atrium-admin'] },
      },
    });
    user = await issuer.mint({
      claims: {
        sub: 'alice',
        preferred_username: 'alice',
        azp: 'atrium-shell',
        realm_access: { roles: ['atrium-user'] },
      },
    });
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const body = (version: string, extra: Record<string, unknown> = {}) => ({
    version,
    manifestUrl: `http://localhost:4100/timeoff/${version}/mf-manifest.json`,
    ...releaseHashes('timeoff', version),
    ...extra,
  });

  const createRemote = (payload: unknown, token = admin) =>
    api.request({ method: 'POST', url: '/api/remotes', token, body: payload });
  const updateRemote = (name: string, payload: unknown, token = admin) =>
    api.request({ method: 'PATCH', url: `/api/remotes/${name}`, token, body: payload });
  const publish = (name: string, payload: unknown, token = publisher) =>
    api.request({ method: 'POST', url: `/api/remotes/${name}/versions`, token, body: payload });
  const activate = (name: string, version: string, token = admin) =>
    api.request({ method: 'PUT', url: `/api/remotes/${name}/active`, token, body: { version } });
  const history = async (name: string) =>
    (await api.request({ url: `/api/remotes/${name}/versions`, token: admin })).json<{
      remote: RemoteDetailBody;
      versions: Array<{ version: string; active: boolean }>;
    }>();
  const names = async (token: string) =>
    (await api.request({ url: '/api/remotes', token }))
      .json<{ remotes: RemoteEntryBody[] }>()
      .remotes.map((r) => r.name);
  const latestAudit = async (count: number) =>
    (await api.request({ url: `/api/audit?pageSize=${count}`, token: admin })).json<AuditBody>();
  const fieldsOf = (response: { json: <T>() => T }) =>
    response.json<{ errors: Array<{ field: string }> }>().errors.map((error) => error.field);

  it('lets an administrator create a remote with its settings and owner, audited as remote.created', async () => {
    const response = await createRemote({
      name: 'timeoff',
      title: 'Time off',
      path: '/time-off',
      navOrder: 5,
      owner: 'atrium-deployer',
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      name: 'timeoff',
      title: 'Time off',
      path: '/time-off',
      navOrder: 5,
      requiredRoles: [],
      owner: 'atrium-deployer',
      activeVersion: null,
    });
    const [event] = (await latestAudit(1)).items;
    expect(event).toMatchObject({
      actor: 'ada',
      action: 'remote.created',
      target: 'timeoff',
      details: {
        remote: 'timeoff',
        title: 'Time off',
        path: '/time-off',
        navOrder: 5,
        requiredRoles: [],
        owner: 'atrium-deployer',
      },
    });
  });

  it('refuses creating a remote to a deployer and to a user with 403 insufficient_scope, creating nothing', async () => {
    for (const token of [publisher, user]) {
      const response = await createRemote(
        { name: 'sneaky', title: 'Sneaky', path: '/sneaky', owner: 'atrium-deployer' },
        token,
      );
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'insufficient_scope', requiredRoles: ['atrium-admin'] });
    }
    expect((await api.request({ url: '/api/remotes/sneaky/versions', token: admin })).statusCode).toBe(404);
  });

  it('answers 409 remote_exists for a name that exists, and path_in_use for a path another remote uses', async () => {
    const again = await createRemote({ name: 'timeoff', title: 'Again', path: '/again', owner: 'x' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'remote_exists' });
    const samePath = await createRemote({ name: 'other', title: 'Other', path: '/time-off', owner: 'x' });
    expect(samePath.statusCode).toBe(409);
    expect(samePath.json()).toMatchObject({ code: 'path_in_use' });
    expect((await history('timeoff')).remote.title).toBe('Time off');
  });

  it('refuses a publish to a remote nobody created with 404 saying an administrator must create it first', async () => {
    const response = await publish('leave', {
      ...body('1.0.0'),
      manifestUrl: 'http://localhost:4100/leave/1.0.0/mf-manifest.json',
    });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'remote_not_found' });
    expect(response.json<{ detail: string }>().detail).toMatch(/An administrator must create it first/);
  });

  it('lets the owning deployer publish and activate, answering 201 with the remote and the version', async () => {
    const response = await publish('timeoff', body('1.0.0', { activate: true }));
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      remote: {
        name: 'timeoff',
        title: 'Time off',
        path: '/time-off',
        navOrder: 5,
        requiredRoles: [],
        owner: 'atrium-deployer',
        activeVersion: '1.0.0',
      },
      version: {
        version: '1.0.0',
        active: true,
        ...releaseHashes('timeoff', '1.0.0'),
        publishedBy: 'service-account-atrium-deployer',
      },
    });
  });

  it('lists the active version for a signed-in user, with the manifest URL as entry and both hashes', async () => {
    const response = await api.request({ url: '/api/remotes', token: user });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ remotes: RemoteEntryBody[] }>().remotes).toContainEqual({
      name: 'timeoff',
      title: 'Time off',
      path: '/time-off',
      navOrder: 5,
      version: '1.0.0',
      entry: 'http://localhost:4100/timeoff/1.0.0/mf-manifest.json',
      ...releaseHashes('timeoff', '1.0.0'),
      requiredRoles: [],
    });
  });

  it('refuses publishing without the remote-publisher role with 403 insufficient_scope', async () => {
    for (const token of [user, admin]) {
      const response = await publish('timeoff', body('9.9.9'), token);
      expect(response.statusCode).toBe(403);
      expect(response.headers['www-authenticate']).toMatch(
        /^Bearer realm="atrium", error="insufficient_scope"/,
      );
      expect(response.json()).toMatchObject({
        code: 'insufficient_scope',
        requiredRoles: ['remote-publisher'],
      });
    }
  });

  it("refuses another team's deployer publishing or activating the remote with 403 not_remote_owner; the owner carries on", async () => {
    const published = await publish('timeoff', body('6.6.6', { activate: true }), otherPublisher);
    expect(published.statusCode).toBe(403);
    expect(published.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(published.json()).toMatchObject({
      code: 'not_remote_owner',
      owner: 'atrium-deployer',
      remote: 'timeoff',
    });
    expect(published.json<{ detail: string }>().detail).toMatch(
      /owned by the deployer client "atrium-deployer": only its owner may publish its versions.*"team-b-deployer"/,
    );
    const activated = await activate('timeoff', '1.0.0', otherPublisher);
    expect(activated.statusCode).toBe(403);
    expect(activated.json()).toMatchObject({ code: 'not_remote_owner' });
    expect(activated.json<{ detail: string }>().detail).toMatch(/only its owner may activate its versions/);

    const after = await history('timeoff');
    expect(after.versions.map((v) => v.version)).toEqual(['1.0.0']);
    expect(after.remote.activeVersion).toBe('1.0.0');
    // The legitimate owner is not disturbed by the refusals.
    expect((await publish('timeoff', body('1.0.1'))).statusCode).toBe(201);
    expect((await activate('timeoff', '1.0.1', publisher)).json()).toMatchObject({ activeVersion: '1.0.1' });
    expect((await activate('timeoff', '1.0.0', publisher)).json()).toMatchObject({ activeVersion: '1.0.0' });
  });

  it.each([
    ['title', 'Everyone sees me'],
    ['path', '/admin'],
    ['navOrder', 0],
    ['requiredRoles', []],
    ['owner', 'team-b-deployer'],
  ])(
    'refuses %s on publish with 400 saying it is an administrator’s act, changing nothing',
    async (field, value) => {
      const before = (await history('timeoff')).remote;
      const response = await publish('timeoff', body('7.0.0', { activate: true, [field]: value }));
      expect(response.statusCode).toBe(400);
      const errors = response.json<{ errors: Array<{ field: string; message: string }> }>().errors;
      expect(errors).toEqual([
        { field, message: expect.stringContaining('set by an administrator') as unknown },
      ]);
      const after = await history('timeoff');
      expect(after.remote).toEqual(before);
      expect(after.versions.map((v) => v.version)).not.toContain('7.0.0');
    },
  );

  it('refuses the admin routes to a user without atrium-admin, and any route without a token', async () => {
    for (const [method, url, payload] of [
      ['POST', '/api/remotes', { name: 'x1', title: 'X', path: '/x1', owner: 'atrium-deployer' }],
      ['PATCH', '/api/remotes/timeoff', { title: 'X' }],
      ['PUT', '/api/remotes/timeoff/active', { version: '1.0.0' }],
      ['GET', '/api/remotes/timeoff/versions', undefined],
      ['GET', '/api/admin/remotes', undefined],
      ['GET', '/api/audit', undefined],
    ] as const) {
      const refused = await api.request({
        method,
        url,
        token: user,
        ...(payload ? { body: payload } : {}),
      });
      expect(refused.statusCode, url).toBe(403);
      expect(refused.json(), url).toMatchObject({ code: 'insufficient_scope' });
      expect((await api.request({ method, url })).statusCode, url).toBe(401);
    }
  });

  it("refuses a deployer changing a remote's settings (even its own) with 403, leaving it as it was", async () => {
    const before = (await history('timeoff')).remote;
    for (const token of [publisher, otherPublisher]) {
      const response = await updateRemote('timeoff', { requiredRoles: ['nobody'], path: '/hijack' }, token);
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'insufficient_scope', requiredRoles: ['atrium-admin'] });
    }
    expect((await history('timeoff')).remote).toEqual(before);
    expect(await names(user)).toContain('timeoff');
  });

  it('lets an administrator change who sees a remote, audited as remote.updated with each old and new value', async () => {
    const response = await updateRemote('timeoff', { title: 'Leave', requiredRoles: ['atrium-admin'] });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      name: 'timeoff',
      title: 'Leave',
      path: '/time-off',
      requiredRoles: ['atrium-admin'],
      owner: 'atrium-deployer',
      activeVersion: '1.0.0',
    });
    expect(await names(user)).not.toContain('timeoff');
    expect(await names(admin)).toContain('timeoff');
    const [event] = (await latestAudit(1)).items;
    expect(event).toEqual(
      expect.objectContaining({
        actor: 'ada',
        action: 'remote.updated',
        target: 'timeoff',
        details: {
          remote: 'timeoff',
          changes: {
            title: { from: 'Time off', to: 'Leave' },
            requiredRoles: { from: [], to: ['atrium-admin'] },
          },
        },
      }),
    );

    // Sending the values it already has changes nothing and records nothing.
    const total = (await latestAudit(1)).total;
    expect((await updateRemote('timeoff', { title: 'Leave' })).statusCode).toBe(200);
    expect((await latestAudit(1)).total).toBe(total);

    expect((await updateRemote('timeoff', { title: 'Time off', requiredRoles: [] })).statusCode).toBe(200);
    expect(await names(user)).toContain('timeoff');
  });

  it('hands a remote to another owner: from then on only the new owner publishes', async () => {
    expect((await updateRemote('timeoff', { owner: 'team-b-deployer' })).json()).toMatchObject({
      owner: 'team-b-deployer',
    });
    expect((await publish('timeoff', body('1.2.0'))).json()).toMatchObject({ code: 'not_remote_owner' });
    expect((await publish('timeoff', body('1.2.0'), otherPublisher)).statusCode).toBe(201);
    expect((await updateRemote('timeoff', { owner: 'atrium-deployer' })).statusCode).toBe(200);
    expect((await publish('timeoff', body('1.3.0'), otherPublisher)).statusCode).toBe(403);
  });

  it('answers 409 path_in_use when a change would take the path of another remote', async () => {
    expect(
      (await createRemote({ name: 'other', title: 'Other', path: '/other', owner: 'atrium-deployer' }))
        .statusCode,
    ).toBe(201);
    const response = await updateRemote('other', { path: '/time-off' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'path_in_use' });
    expect((await history('other')).remote.path).toBe('/other');
  });

  it('publishes without activating, then an administrator activates and rolls back, auditing each change', async () => {
    expect((await publish('timeoff', body('1.1.0'))).statusCode).toBe(201);
    expect(
      (await api.request({ url: '/api/remotes', token: user }))
        .json<{ remotes: RemoteEntryBody[] }>()
        .remotes.find((r) => r.name === 'timeoff')?.version,
    ).toBe('1.0.0');

    const activated = await activate('timeoff', '1.1.0');
    expect(activated.statusCode).toBe(200);
    expect(activated.json()).toMatchObject({ name: 'timeoff', activeVersion: '1.1.0' });
    expect(
      (await api.request({ url: '/api/remotes', token: user }))
        .json<{ remotes: RemoteEntryBody[] }>()
        .remotes.find((r) => r.name === 'timeoff'),
    ).toMatchObject({ version: '1.1.0', ...releaseHashes('timeoff', '1.1.0') });

    expect((await activate('timeoff', '1.0.0')).json()).toMatchObject({ activeVersion: '1.0.0' });
    const versions = (await history('timeoff')).versions;
    expect(versions.find((v) => v.active)?.version).toBe('1.0.0');
    expect(versions.map((v) => v.version)).toEqual(['1.1.0', '1.2.0', '1.0.1', '1.0.0']);

    const page = await latestAudit(3);
    expect(page.pageSize).toBe(3);
    expect(page.items.map((item) => [item.actor, item.action, item.target])).toEqual([
      ['ada', 'remote.version.activated', 'timeoff@1.0.0'],
      ['ada', 'remote.version.activated', 'timeoff@1.1.0'],
      ['service-account-atrium-deployer', 'remote.version.published', 'timeoff@1.1.0'],
    ]);
    expect(page.items[0]?.details).toMatchObject({ previousVersion: '1.1.0' });
    expect(page.items[2]?.details).toEqual({
      remote: 'timeoff',
      version: '1.1.0',
      manifestUrl: 'http://localhost:4100/timeoff/1.1.0/mf-manifest.json',
      ...releaseHashes('timeoff', '1.1.0'),
      // Published without its manifest: its shared dependencies are unknown, and unchecked.
      shared: null,
    });
  });

  it('answers 404 for an unknown remote or version', async () => {
    const unknownRemote = await activate('nope', '1.0.0');
    expect(unknownRemote.statusCode).toBe(404);
    expect(unknownRemote.json()).toMatchObject({ code: 'remote_not_found' });
    expect((await activate('timeoff', '7.0.0')).json()).toMatchObject({
      code: 'version_not_found',
      status: 404,
    });
    expect((await api.request({ url: '/api/remotes/nope/versions', token: admin })).statusCode).toBe(404);
    expect((await updateRemote('nope', { title: 'Nope' })).json()).toMatchObject({
      code: 'remote_not_found',
    });
  });

  it('serves each set of roles its own list, however calls with different roles follow one another', async () => {
    expect(
      (
        await createRemote({
          name: 'pairs',
          title: 'Pairs',
          path: '/pairs',
          requiredRoles: ['team-a', 'team-b'],
          owner: 'atrium-deployer',
        })
      ).statusCode,
    ).toBe(201);
    const release = {
      version: '1.0.0',
      manifestUrl: 'http://localhost:4100/pairs/1.0.0/mf-manifest.json',
      ...releaseHashes('pairs', '1.0.0'),
      activate: true,
    };
    expect((await publish('pairs', release)).statusCode).toBe(201);
    const holding = (roles: string[]) =>
      issuer.mint({
        claims: {
          sub: roles.join('+'),
          azp: 'atrium-shell',
          realm_access: { roles: ['atrium-user', ...roles] },
        },
      });
    const both = await holding(['team-b', 'team-a']);
    const one = await holding(['team-a']);
    // One role whose name reads like the two joined: it holds neither of them.
    const joined = await holding(['team-a\nteam-b']);

    for (let round = 0; round < 2; round += 1) {
      expect(await names(one)).not.toContain('pairs');
      expect(await names(both)).toContain('pairs');
      expect(await names(joined)).not.toContain('pairs');
      expect(await names(user)).not.toContain('pairs');
    }
  });

  it('lets the platform client create remotes and publish the ones it owns, and keeps feature deployers out of them', async () => {
    const created = await createRemote(
      {
        name: 'console',
        title: 'Console',
        path: '/console',
        requiredRoles: ['atrium-admin'],
        owner: 'atrium-platform',
      },
      platform,
    );
    expect(created.statusCode).toBe(201);
    const consoleBody = (version: string) => ({
      version,
      manifestUrl: `http://localhost:4100/console/${version}/mf-manifest.json`,
      ...releaseHashes('console', version),
      activate: true,
    });
    expect((await publish('console', consoleBody('1.0.0'), platform)).statusCode).toBe(201);

    // The feature teams' deployer can neither replace the code administrators run nor roll it back.
    const replaced = await publish('console', consoleBody('6.6.6'), publisher);
    expect(replaced.statusCode).toBe(403);
    expect(replaced.json()).toMatchObject({ code: 'not_remote_owner', owner: 'atrium-platform' });
    expect((await activate('console', '1.0.0', publisher)).json()).toMatchObject({
      code: 'not_remote_owner',
    });
    // Owning one remote gives the platform no say over another team's.
    expect((await publish('timeoff', body('8.0.0'), platform)).json()).toMatchObject({
      code: 'not_remote_owner',
      owner: 'atrium-deployer',
    });

    expect(await names(user)).not.toContain('console');
    expect(await names(admin)).toContain('console');
    expect((await history('console')).versions.map((v) => v.version)).toEqual(['1.0.0']);
    expect((await publish('console', consoleBody('1.0.1'), platform)).statusCode).toBe(201);
  });

  it("refuses an administrator's session handing platform code to a feature deployer, which would let it publish there", async () => {
    // The chain a feature remote could drive through an administrator's browser: take the admin console's
    // ownership for its own deployer, then publish its code there.
    const handover = await updateRemote('console', { owner: 'atrium-deployer' }, admin);
    expect(handover.statusCode).toBe(403);
    expect(handover.json()).toMatchObject({
      code: 'not_remote_owner',
      owner: 'atrium-platform',
      detail: expect.stringMatching(/platform code.*only that client may give it another owner/) as unknown,
    });
    expect((await history('console')).remote.owner).toBe('atrium-platform');
    const consoleRelease = {
      version: '6.6.6',
      manifestUrl: 'http://localhost:4100/console/6.6.6/mf-manifest.json',
      ...releaseHashes('console', '6.6.6'),
    };
    expect((await publish('console', consoleRelease, publisher)).statusCode).toBe(403);
    // Administrators still change everything else about it, and the platform client may hand it over.
    expect((await updateRemote('console', { title: 'Console' }, admin)).statusCode).toBe(200);
    expect((await updateRemote('console', { owner: 'team-b-deployer' }, platform)).statusCode).toBe(200);
    expect((await updateRemote('console', { owner: 'atrium-platform' }, admin)).statusCode).toBe(200);
  });

  it.each([
    ['integrity', 'without', undefined],
    ['integrity', 'with a null', null],
    ['manifestIntegrity', 'without', undefined],
    ['manifestIntegrity', 'with a null', null],
  ])(
    'refuses a publish %s %s hash with 400 saying how to compute it, and writes nothing',
    async (field, _how, value) => {
      const payload: Record<string, unknown> = body('3.0.0', { activate: true });
      if (value === undefined) delete payload[field];
      else payload[field] = value;
      const response = await publish('timeoff', payload);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      const errors = response.json<{ errors: Array<{ field: string; message: string }> }>().errors;
      expect(errors.map((error) => error.field)).toEqual([field]);
      expect(errors[0]?.message).toMatch(/^is required: the SRI sha384 hash .*npm run release/);
      expect((await history('timeoff')).versions.map((v) => v.version)).not.toContain('3.0.0');
    },
  );

  it('never lists, and refuses to activate, a version registered before both hashes were required', async () => {
    // Rows as the previous schema left them: the migration adds manifest_integrity as null.
    const em = api.app.get(MikroORM).em.fork();
    const now = new Date();
    const legacy = em.create(Remote, {
      name: 'legacy',
      title: 'Legacy',
      path: '/legacy',
      navOrder: 1,
      requiredRoles: [],
      owner: 'atrium-deployer',
      createdAt: now,
      updatedAt: now,
    });
    em.create(RemoteVersion, {
      remote: legacy,
      version: '0.9.0',
      manifestUrl: 'http://localhost:4100/legacy/0.9.0/mf-manifest.json',
      integrity: releaseHashes('legacy', '0.9.0').integrity,
      manifestIntegrity: null,
      publishedBy: 'before-the-migration',
      publishedAt: now,
      active: true,
    });
    await em.flush();

    expect(await names(admin)).not.toContain('legacy');
    const activated = await activate('legacy', '0.9.0');
    expect(activated.statusCode).toBe(409);
    expect(activated.json()).toMatchObject({ code: 'version_unverifiable' });
    const all = await api.request({ url: '/api/admin/remotes', token: admin });
    expect(
      all
        .json<{ remotes: Array<{ name: string; versions: Array<{ manifestIntegrity: string | null }> }> }>()
        .remotes.find((r) => r.name === 'legacy')?.versions,
    ).toEqual([expect.objectContaining({ manifestIntegrity: null })]);
  });

  it('lists every remote with its owner and versions for the admin console', async () => {
    const all = await api.request({ url: '/api/admin/remotes', token: admin });
    const remotes = all.json<{ remotes: Array<RemoteDetailBody & { versions: unknown[] }> }>().remotes;
    expect(remotes.map((r) => [r.name, r.owner])).toEqual(
      expect.arrayContaining([
        ['timeoff', 'atrium-deployer'],
        ['console', 'atrium-platform'],
      ]),
    );
  });

  it.each([
    ['version', body('1.0'), 'version'],
    ['version with a v', body('v2.0.0'), 'version'],
    ['a relative manifest URL', body('2.0.0', { manifestUrl: '/time-off/mf-manifest.json' }), 'manifestUrl'],
    [
      'a manifest URL with credentials',
      body('2.0.0', { manifestUrl: 'http://u:p@localhost:4100/mf-manifest.json' }),
      'manifestUrl',
    ],
    [
      'a URL that is not a manifest',
      body('2.0.0', { manifestUrl: 'http://localhost:4100/timeoff/remoteEntry.js' }),
      'manifestUrl',
    ],
    [
      'a manifest URL with a NUL',
      body('2.0.0', { manifestUrl: 'http://localhost:4100/timeoff/2.0.0\u0000/mf-manifest.json' }),
      'manifestUrl',
    ],
    ['an integrity that is not SRI', body('2.0.0', { integrity: 'md5-abc' }), 'integrity'],
    [
      'an integrity that is not sha384',
      body('2.0.0', { integrity: `sha256-${'A'.repeat(43)}=` }),
      'integrity',
    ],
    [
      'a manifestIntegrity that is not SRI',
      body('2.0.0', { manifestIntegrity: 'sha384-x' }),
      'manifestIntegrity',
    ],
    ['activate as a string', body('2.0.0', { activate: 'yes' }), 'activate'],
    ['an unknown field', body('2.0.0', { colour: 'red' }), 'colour'],
    ['a body that is not an object', [1, 2], '(body)'],
  ])('refuses a publish with %s with 400 naming the field', async (_name, payload, field) => {
    const response = await publish('timeoff', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation_failed' });
    expect(fieldsOf(response)).toContain(field);
  });

  it('refuses a publish of a manifest on another origin with 400 remote_origin_refused naming manifestUrl', async () => {
    const response = await publish(
      'timeoff',
      body('2.0.0', { manifestUrl: 'https://evil.test/x/mf-manifest.json' }),
    );
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({
      code: 'remote_origin_refused',
      type: 'urn:atrium:problem:remote_origin_refused',
    });
    expect(fieldsOf(response)).toEqual(['manifestUrl']);
    expect(response.json<{ errors: Array<{ message: string }> }>().errors[0]?.message).toContain(
      'origin https://evil.test is not allowed',
    );
  });

  const remote = (extra: Record<string, unknown> = {}) => ({
    name: 'fresh',
    title: 'Fresh',
    path: '/fresh',
    owner: 'atrium-deployer',
    ...extra,
  });

  // The rule a Module Federation container name needs, the same sentence the build, the release CLI and
  // the shell give (remote-rules.ts).
  it.each(['time-off', 'time_off', 'Profile', 'p', '1up', `a${'b'.repeat(40)}`])(
    'refuses a remote named %j with problem+json 400 naming the one rule',
    async (name) => {
      const response = await createRemote(remote({ name }));
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({
        code: 'validation_failed',
        errors: [{ field: 'name', message: REMOTE_NAME_RULE }],
      });
    },
  );

  it('refuses a bad name in the path with the same rule', async () => {
    const response = await publish('time-off', body('2.0.0'));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ errors: [{ field: 'name', message: REMOTE_NAME_RULE }] });
  });

  it.each([
    ['a bad name', remote({ name: 'Bad_Name' }), 'name'],
    ['no owner', remote({ owner: undefined }), 'owner'],
    ['an owner that is not a client id', remote({ owner: 'team b' }), 'owner'],
    ['an empty title', remote({ title: '' }), 'title'],
    ['a long title', remote({ title: 'x'.repeat(81) }), 'title'],
    ['a title with a NUL', remote({ title: 'Time\u0000off' }), 'title'],
    ['a title with a line break', remote({ title: 'Time\noff' }), 'title'],
    ['a path without /', remote({ path: 'fresh' }), 'path'],
    ['the root path', remote({ path: '/' }), 'path'],
    ['a reserved path', remote({ path: '/api/x' }), 'path'],
    ['the auth path', remote({ path: '/auth' }), 'path'],
    ['a navOrder out of range', remote({ navOrder: 1001 }), 'navOrder'],
    ['a fractional navOrder', remote({ navOrder: 1.5 }), 'navOrder'],
    ['a bad role', remote({ requiredRoles: ['ok', 'not ok'] }), 'requiredRoles.1'],
    ['an unknown field', remote({ colour: 'red' }), 'colour'],
  ])('refuses creating a remote with %s with 400 naming the field', async (_name, payload, field) => {
    const response = await createRemote(payload);
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toContain(field);
    expect((await api.request({ url: '/api/remotes/fresh/versions', token: admin })).statusCode).toBe(404);
  });

  it.each([
    ['nothing to change', {}, '(body)'],
    ['a path without /', { path: 'x' }, 'path'],
    ['an owner that is not a client id', { owner: '' }, 'owner'],
    ['a name (which never changes)', { name: 'renamed' }, 'name'],
  ])('refuses a change with %s with 400 naming the field', async (_name, payload, field) => {
    const response = await updateRemote('timeoff', payload);
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toContain(field);
  });

  describe('withdrawing a version', () => {
    const withdraw = (version: string, payload: unknown, token = admin) =>
      api.request({
        method: 'POST',
        url: `/api/remotes/payroll/versions/${version}/withdrawal`,
        token,
        body: payload,
      });
    const list = async (token = user) =>
      (await api.request({ url: '/api/remotes', token })).json<{
        remotes: RemoteEntryBody[];
        withdrawn: Array<{ name: string; version: string; kind: string; reason: string }>;
      }>();
    const payrollBody = (version: string) => ({
      version,
      manifestUrl: `http://localhost:4100/payroll/${version}/mf-manifest.json`,
      ...releaseHashes('payroll', version),
    });

    beforeAll(async () => {
      expect(
        (
          await createRemote({
            name: 'payroll',
            title: 'Payroll',
            path: '/payroll',
            owner: 'atrium-deployer',
          })
        ).statusCode,
      ).toBe(201);
      for (const version of ['1.0.0', '1.1.0']) {
        expect((await publish('payroll', payrollBody(version))).statusCode).toBe(201);
      }
      expect((await activate('payroll', '1.0.0')).statusCode).toBe(200);
    });

    it('refuses anyone but an administrator, a reason-less withdrawal, and the version people are served', async () => {
      expect((await withdraw('1.1.0', { reason: 'leaks data' }, publisher)).statusCode).toBe(403);
      expect((await withdraw('1.1.0', { reason: 'leaks data' }, user)).statusCode).toBe(403);
      const blank = await withdraw('1.1.0', { reason: '   ' });
      expect(blank.statusCode).toBe(400);
      expect(fieldsOf(blank)).toEqual(['reason']);
      const active = await withdraw('1.0.0', { reason: 'leaks data' });
      expect(active.statusCode).toBe(409);
      const problem = active.json<{ code: string; detail: string }>();
      expect(problem.code).toBe('version_in_use');
      expect(problem.detail).toContain('activate another version first');
      expect((await withdraw('9.9.9', { reason: 'leaks data' })).statusCode).toBe(404);
      expect((await list()).withdrawn).toEqual([]);
    });

    it('withdraws a version for good: audited with its reason, named to open pages, never activated again', async () => {
      const response = await withdraw('1.1.0', { reason: 'leaks data' });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        version: '1.1.0',
        active: false,
        withdrawal: { by: 'ada', reason: 'leaks data' },
      });
      expect((await latestAudit(1)).items[0]).toMatchObject({
        actor: 'ada',
        action: 'remote.version.withdrawn',
        target: 'payroll@1.1.0',
        details: { remote: 'payroll', version: '1.1.0', reason: 'leaks data' },
      });
      // Every person who may use the remote is told, so a page that holds 1.1.0 drops it.
      expect((await list()).withdrawn).toEqual([
        { name: 'payroll', version: '1.1.0', kind: 'withdrawn', reason: 'leaks data' },
      ]);

      const activation = await activate('payroll', '1.1.0');
      expect(activation.statusCode).toBe(409);
      expect(activation.json<{ code: string }>().code).toBe('version_withdrawn');
      const canary = await api.request({
        method: 'POST',
        url: '/api/remotes/payroll/rollout',
        token: admin,
        body: { version: '1.1.0', percent: 10 },
      });
      expect(canary.statusCode).toBe(409);
      expect(canary.json<{ code: string }>().code).toBe('version_withdrawn');
      expect((await list()).remotes.find((remote) => remote.name === 'payroll')?.version).toBe('1.0.0');

      // Again: nothing changes, nothing more is audited.
      expect((await withdraw('1.1.0', { reason: 'another reason' })).json()).toMatchObject({
        withdrawal: { reason: 'leaks data' },
      });
      expect((await latestAudit(1)).items[0]?.details).toMatchObject({ reason: 'leaks data' });
    });
  });

  it('keeps a publish said to be breaking with its version and in its audit event, and shows both to the owner', async () => {
    expect(
      (
        await createRemote({
          name: 'contract',
          title: 'Contract',
          path: '/contract',
          owner: 'atrium-deployer',
        })
      ).statusCode,
    ).toBe(201);
    const manifestUrl = (version: string) => `http://localhost:4100/contract/${version}/mf-manifest.json`;
    const release = (version: string, extra: Record<string, unknown> = {}) => ({
      ...body(version, extra),
      manifestUrl: manifestUrl(version),
    });
    expect((await publish('contract', release('1.0.0', { activate: true }))).statusCode).toBe(201);
    const breaking = await publish('contract', release('2.0.0', { breaking: true }));
    expect(breaking.statusCode).toBe(201);
    expect(breaking.json()).toMatchObject({ version: { version: '2.0.0', breaking: true, active: false } });
    expect((await latestAudit(1)).items[0]).toMatchObject({
      action: 'remote.version.published',
      target: 'contract@2.0.0',
      details: { version: '2.0.0', breaking: true },
    });

    // The release CLI reads the active version as the owner; another team's deployer is refused.
    const listed = await api.request({ url: '/api/remotes/contract/versions', token: publisher });
    expect(listed.statusCode).toBe(200);
    expect(
      listed
        .json<{ versions: Array<{ version: string; active: boolean; breaking: boolean }> }>()
        .versions.map(({ version, active, breaking }) => ({ version, active, breaking })),
    ).toEqual([
      { version: '2.0.0', active: false, breaking: true },
      { version: '1.0.0', active: true, breaking: false },
    ]);
    const theirs = await api.request({ url: '/api/remotes/contract/versions', token: otherPublisher });
    expect(theirs.statusCode).toBe(403);
    expect(theirs.json()).toMatchObject({ code: 'not_remote_owner' });
    expect(theirs.json<{ detail: string }>().detail).toMatch(/only its owner may list its versions/);

    const bad = await publish('contract', release('3.0.0', { breaking: 'yes' }));
    expect(bad.statusCode).toBe(400);
    expect(fieldsOf(bad)).toEqual(['breaking']);
  });

  it('refuses a bad remote name in the path with 400 naming it', async () => {
    const response = await publish('Bad_Name', body('2.0.0'));
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toEqual(['name']);
  });

  it.each([
    ['pageSize=0', 'pageSize'],
    ['pageSize=101', 'pageSize'],
    ['page=2 (pages are reached by cursor)', 'page'],
    ['before=not-a-cursor!', 'before'],
    [`before=${Buffer.from('2026-11-23T00:00:00.000Z|-1').toString('base64url')}`, 'before'],
    ['from=yesterday', 'from'],
    ['from=2026-11-23T00:00:00Z&to=2026-11-22T00:00:00Z', 'to'],
    ['sort=asc', 'sort'],
  ])('refuses the audit query %s with 400 naming the parameter', async (query, field) => {
    const response = await api.request({ url: `/api/audit?${query.split(' ')[0]}`, token: admin });
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toContain(field);
  });
});
