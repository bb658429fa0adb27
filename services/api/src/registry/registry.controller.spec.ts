import { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '../../test/local-issuer.js';
import { releaseHashes } from '../../test/release-hashes.js';
import { RemoteVersion } from './remote-version.entity.js';
import { Remote } from './remote.entity.js';

interface RemoteEntryBody {
  name: string;
  version: string;
  entry: string;
  integrity: string;
  manifestIntegrity: string;
}

describe('registry of remotes on SQLite', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let publisher: string;
  let admin: string;
  let user: string;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
    publisher = await issuer.mint({
      claims: {
        sub: 'deployer',
        preferred_username: 'service-account-atrium-deployer',
        realm_access: { roles: ['remote-publisher'] },
      },
    });
    admin = await issuer.mint({
      claims: {
        sub: 'ada',
        preferred_username: 'ada',
        realm_access: { roles: ['atrium-user', 'atrium-admin'] },
      },
    });
    user = await issuer.mint({
      claims: { sub: 'alice', preferred_username: 'alice', realm_access: { roles: ['atrium-user'] } },
    });
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const body = (version: string, extra: Record<string, unknown> = {}) => ({
    version,
    manifestUrl: `http://localhost:4100/time-off/${version}/mf-manifest.json`,
    ...releaseHashes('time-off', version),
    title: 'Time off',
    path: '/time-off',
    ...extra,
  });

  const publish = (name: string, payload: unknown, token = publisher) =>
    api.request({ method: 'POST', url: `/api/remotes/${name}/versions`, token, body: payload });

  it('creates the remote on first publish and answers 201 with the remote and the version', async () => {
    const response = await publish('time-off', body('1.0.0', { activate: true, navOrder: 5 }));
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      remote: {
        name: 'time-off',
        title: 'Time off',
        path: '/time-off',
        navOrder: 5,
        requiredRoles: [],
        activeVersion: '1.0.0',
      },
      version: {
        version: '1.0.0',
        active: true,
        ...releaseHashes('time-off', '1.0.0'),
        publishedBy: 'service-account-atrium-deployer',
      },
    });
  });

  it('lists the active version for a signed-in user, with the manifest URL as entry', async () => {
    const response = await api.request({ url: '/api/remotes', token: user });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ remotes: RemoteEntryBody[] }>().remotes).toContainEqual({
      name: 'time-off',
      title: 'Time off',
      path: '/time-off',
      navOrder: 5,
      version: '1.0.0',
      entry: 'http://localhost:4100/time-off/1.0.0/mf-manifest.json',
      ...releaseHashes('time-off', '1.0.0'),
    });
  });

  it('refuses publishing without the remote-publisher role with 403 insufficient_scope', async () => {
    for (const token of [user, admin]) {
      const response = await publish('time-off', body('9.9.9'), token);
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

  it('refuses admin routes to a user without atrium-admin, and any route without a token', async () => {
    for (const [method, url] of [
      ['PUT', '/api/remotes/time-off/active'],
      ['GET', '/api/remotes/time-off/versions'],
      ['GET', '/api/admin/remotes'],
      ['GET', '/api/audit'],
    ] as const) {
      const refused = await api.request({
        method,
        url,
        token: user,
        ...(method === 'PUT' ? { body: { version: '1.0.0' } } : {}),
      });
      expect(refused.statusCode, url).toBe(403);
      expect((await api.request({ method, url })).statusCode, url).toBe(401);
    }
  });

  it('answers 409 version_exists for a version that exists, changing nothing', async () => {
    const response = await publish('time-off', body('1.0.0', { title: 'Changed' }));
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'version_exists' });
    const history = await api.request({ url: '/api/remotes/time-off/versions', token: admin });
    expect(history.json()).toMatchObject({ remote: { title: 'Time off' } });
  });

  it('publishes without activating, then activates, then rolls back, auditing each change', async () => {
    expect((await publish('time-off', body('1.1.0'))).statusCode).toBe(201);
    const listed = await api.request({ url: '/api/remotes', token: user });
    expect(
      listed.json<{ remotes: RemoteEntryBody[] }>().remotes.find((r) => r.name === 'time-off')?.version,
    ).toBe('1.0.0');

    const activated = await api.request({
      method: 'PUT',
      url: '/api/remotes/time-off/active',
      token: admin,
      body: { version: '1.1.0' },
    });
    expect(activated.statusCode).toBe(200);
    expect(activated.json()).toMatchObject({ name: 'time-off', activeVersion: '1.1.0' });
    const afterActivation = await api.request({ url: '/api/remotes', token: user });
    expect(
      afterActivation.json<{ remotes: RemoteEntryBody[] }>().remotes.find((r) => r.name === 'time-off'),
    ).toMatchObject({
      version: '1.1.0',
      ...releaseHashes('time-off', '1.1.0'),
    });

    const rolledBack = await api.request({
      method: 'PUT',
      url: '/api/remotes/time-off/active',
      token: admin,
      body: { version: '1.0.0' },
    });
    expect(rolledBack.json()).toMatchObject({ activeVersion: '1.0.0' });

    const history = await api.request({ url: '/api/remotes/time-off/versions', token: admin });
    expect(history.statusCode).toBe(200);
    const versions = history.json<{ versions: Array<{ version: string; active: boolean }> }>().versions;
    expect(versions.map((v) => [v.version, v.active])).toEqual([
      ['1.1.0', false],
      ['1.0.0', true],
    ]);

    const audit = await api.request({ url: '/api/audit?page=1&pageSize=3', token: admin });
    expect(audit.statusCode).toBe(200);
    const page = audit.json<{
      items: Array<{ actor: string; action: string; target: string; details: Record<string, unknown> }>;
      total: number;
      pageSize: number;
    }>();
    expect(page.pageSize).toBe(3);
    expect(page.total).toBeGreaterThanOrEqual(4);
    expect(page.items.map((item) => [item.actor, item.action, item.target])).toEqual([
      ['ada', 'remote.version.activated', 'time-off@1.0.0'],
      ['ada', 'remote.version.activated', 'time-off@1.1.0'],
      ['service-account-atrium-deployer', 'remote.version.published', 'time-off@1.1.0'],
    ]);
    expect(page.items[0]?.details).toMatchObject({ previousVersion: '1.1.0' });
  });

  it('answers 404 for an unknown remote or version', async () => {
    const unknownRemote = await api.request({
      method: 'PUT',
      url: '/api/remotes/nope/active',
      token: admin,
      body: { version: '1.0.0' },
    });
    expect(unknownRemote.statusCode).toBe(404);
    expect(unknownRemote.json()).toMatchObject({ code: 'remote_not_found' });
    const unknownVersion = await api.request({
      method: 'PUT',
      url: '/api/remotes/time-off/active',
      token: admin,
      body: { version: '7.0.0' },
    });
    expect(unknownVersion.json()).toMatchObject({ code: 'version_not_found', status: 404 });
    expect((await api.request({ url: '/api/remotes/nope/versions', token: admin })).statusCode).toBe(404);
  });

  it('hides remotes whose required roles the caller lacks', async () => {
    const response = await publish(
      'admin-tools',
      body('0.1.0', {
        manifestUrl: 'http://localhost:4100/admin-tools/0.1.0/mf-manifest.json',
        title: 'Admin',
        path: '/admin',
        requiredRoles: ['atrium-admin'],
        activate: true,
      }),
    );
    expect(response.statusCode).toBe(201);
    const names = async (token: string) =>
      (await api.request({ url: '/api/remotes', token }))
        .json<{ remotes: RemoteEntryBody[] }>()
        .remotes.map((r) => r.name);
    expect(await names(user)).not.toContain('admin-tools');
    expect(await names(admin)).toContain('admin-tools');
    const all = await api.request({ url: '/api/admin/remotes', token: admin });
    expect(
      all.json<{ remotes: Array<{ name: string; versions: unknown[] }> }>().remotes.map((r) => r.name),
    ).toEqual(expect.arrayContaining(['admin-tools', 'time-off']));
  });

  it('answers 409 path_in_use when another remote owns the path', async () => {
    const response = await publish(
      'other',
      body('1.0.0', { manifestUrl: 'http://localhost:4100/other/1.0.0/mf-manifest.json' }),
    );
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'path_in_use' });
  });

  const fieldsOf = (response: { json: <T>() => T }) =>
    response.json<{ errors: Array<{ field: string }> }>().errors.map((error) => error.field);

  it.each([
    ['version', body('1.0'), 'version'],
    ['version with a v', body('v2.0.0'), 'version'],
    ['a relative manifest URL', body('2.0.0', { manifestUrl: '/time-off/mf-manifest.json' }), 'manifestUrl'],
    [
      'a manifest on another origin',
      body('2.0.0', { manifestUrl: 'https://evil.test/x/mf-manifest.json' }),
      'manifestUrl',
    ],
    [
      'a manifest URL with credentials',
      body('2.0.0', { manifestUrl: 'http://u:p@localhost:4100/mf-manifest.json' }),
      'manifestUrl',
    ],
    [
      'a URL that is not a manifest',
      body('2.0.0', { manifestUrl: 'http://localhost:4100/time-off/remoteEntry.js' }),
      'manifestUrl',
    ],
    [
      'a manifest URL with a NUL',
      body('2.0.0', { manifestUrl: 'http://localhost:4100/time-off/2.0.0\u0000/mf-manifest.json' }),
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
    ['an empty title', body('2.0.0', { title: '' }), 'title'],
    ['a long title', body('2.0.0', { title: 'x'.repeat(81) }), 'title'],
    ['a title with a NUL', body('2.0.0', { title: 'Time\u0000off' }), 'title'],
    ['a title with a line break', body('2.0.0', { title: 'Time\noff' }), 'title'],
    ['a path without /', body('2.0.0', { path: 'time-off' }), 'path'],
    ['the root path', body('2.0.0', { path: '/' }), 'path'],
    ['a reserved path', body('2.0.0', { path: '/api/x' }), 'path'],
    ['the auth path', body('2.0.0', { path: '/auth' }), 'path'],
    ['a navOrder out of range', body('2.0.0', { navOrder: 1001 }), 'navOrder'],
    ['a fractional navOrder', body('2.0.0', { navOrder: 1.5 }), 'navOrder'],
    ['a bad role', body('2.0.0', { requiredRoles: ['ok', 'not ok'] }), 'requiredRoles.1'],
    ['activate as a string', body('2.0.0', { activate: 'yes' }), 'activate'],
    ['an unknown field', body('2.0.0', { colour: 'red' }), 'colour'],
    ['a body that is not an object', [1, 2], '(body)'],
  ])('refuses %s with 400 naming the field', async (_name, payload, field) => {
    const response = await publish('time-off', payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'validation_failed' });
    expect(fieldsOf(response)).toContain(field);
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
      const response = await publish('time-off', payload);
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      const errors = response.json<{ errors: Array<{ field: string; message: string }> }>().errors;
      expect(errors.map((error) => error.field)).toEqual([field]);
      expect(errors[0]?.message).toMatch(/^is required: the SRI sha384 hash .*npm run release/);
      const history = await api.request({ url: '/api/remotes/time-off/versions', token: admin });
      expect(
        history.json<{ versions: Array<{ version: string }> }>().versions.map((v) => v.version),
      ).not.toContain('3.0.0');
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

    const listed = await api.request({ url: '/api/remotes', token: admin });
    expect(listed.json<{ remotes: RemoteEntryBody[] }>().remotes.map((r) => r.name)).not.toContain('legacy');
    const activated = await api.request({
      method: 'PUT',
      url: '/api/remotes/legacy/active',
      token: admin,
      body: { version: '0.9.0' },
    });
    expect(activated.statusCode).toBe(409);
    expect(activated.json()).toMatchObject({ code: 'version_unverifiable' });
    const all = await api.request({ url: '/api/admin/remotes', token: admin });
    expect(
      all
        .json<{ remotes: Array<{ name: string; versions: Array<{ manifestIntegrity: string | null }> }> }>()
        .remotes.find((r) => r.name === 'legacy')?.versions,
    ).toEqual([expect.objectContaining({ manifestIntegrity: null })]);
  });

  it('refuses a bad remote name in the path with 400 naming it', async () => {
    const response = await publish('Bad_Name', body('2.0.0'));
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toEqual(['name']);
  });

  it.each([
    ['page=0', 'page'],
    ['pageSize=101', 'pageSize'],
    ['page=abc', 'page'],
    ['sort=asc', 'sort'],
  ])('refuses the audit query %s with 400 naming the parameter', async (query, field) => {
    const response = await api.request({ url: `/api/audit?${query}`, token: admin });
    expect(response.statusCode).toBe(400);
    expect(fieldsOf(response)).toContain(field);
  });
});
