import { randomBytes } from 'node:crypto';
import { MikroORM, RequestContext } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AuthenticatedUser } from '../auth/index.js';
import { isDataException } from '../common/errors/database-data-errors.js';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { adminQuery, countRows } from '@atrium/test-support/postgres';
import { fetchDeployerToken, fetchPlatformToken } from '@atrium/test-support/keycloak';
import { signIn } from '@atrium/test-support/browser';
import type { BoundToken } from '@atrium/test-support/dpop';
import { releaseHashes } from '@atrium/test-support/releases';
import { RegistryService, type RemoteDetail } from './registry.service.js';

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');

interface ListBody {
  remotes: Array<{
    name: string;
    version: string;
    entry: string;
    integrity: string;
    manifestIntegrity: string;
  }>;
}

/** A remote as the API's JSON carries it (the service's own type, minus the timestamps the tests ignore). */
type RemoteDetailBody = Omit<RemoteDetail, 'createdAt' | 'updatedAt'>;

/*
 * The registry's ownership rules against real client-credentials tokens from Keycloak: atrium-deployer is
 * the feature teams' pipeline (remote-publisher), atrium-platform the platform's (remote-publisher and
 * atrium-admin), ada an administrator who signed in, alice a user. Each attack is performed and shown to
 * fail, and the legitimate owner is shown to carry on afterwards.
 */
describe('registry on PostgreSQL with Keycloak tokens', () => {
  // Names of our own: the database may hold other tests' remotes, and we remove ours afterwards. `admin` is
  // the admin console's real name (the database is created for this run, so it is not there before).
  const suffix = randomBytes(3).toString('hex');
  const open = `itopen${suffix}`;
  const admins = `itadmins${suffix}`;
  const theirs = `ittheirs${suffix}`;
  const consoleRemote = 'admin';
  const ours = [open, admins, theirs, consoleRemote];
  let api: TestApp;
  let deployer: string;
  let platform: string;
  // Signed-in users hold DPoP-bound tokens; api.request sends them with a fresh proof per request.
  let alice: BoundToken;
  let ada: BoundToken;

  beforeAll(async () => {
    api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
    await api.waitForIssuer();
    [deployer, platform, alice, ada] = await Promise.all([
      fetchDeployerToken(issuer),
      fetchPlatformToken(issuer),
      signIn(issuer, 'alice', 'alice'),
      signIn(issuer, 'ada', 'ada'),
    ]);
  });

  afterAll(async () => {
    await api?.close();
    const names = ours.map((name) => `'${name}'`).join(', ');
    await adminQuery(
      databaseUrl,
      `DELETE FROM audit_event WHERE target IN (${names}) OR split_part(target, '@', 1) IN (${names})`,
      `DELETE FROM remote WHERE name IN (${names})`,
    );
  });

  const manifest = (name: string, version: string) =>
    `http://localhost:4100/${name}/${version}/mf-manifest.json`;
  // Every publish carries the two hashes (made up per version); a test that omits one overrides it.
  const publish = (name: string, body: Record<string, unknown>, token: string | BoundToken = deployer) =>
    api.request({
      method: 'POST',
      url: `/api/remotes/${name}/versions`,
      token,
      body: {
        manifestUrl: manifest(name, String(body['version'])),
        ...releaseHashes(name, String(body['version'])),
        ...body,
      },
    });
  const activate = (name: string, version: string, token: string | BoundToken = ada) =>
    api.request({ method: 'PUT', url: `/api/remotes/${name}/active`, token, body: { version } });
  const createRemote = (body: Record<string, unknown>, token: string | BoundToken = platform) =>
    api.request({ method: 'POST', url: '/api/remotes', token, body });
  const updateRemote = (name: string, body: Record<string, unknown>, token: string | BoundToken = ada) =>
    api.request({ method: 'PATCH', url: `/api/remotes/${name}`, token, body });
  const names = async (token: BoundToken) =>
    (await api.request({ url: '/api/remotes', token })).json<ListBody>().remotes.map((remote) => remote.name);
  const history = async (name: string) =>
    (await api.request({ url: `/api/remotes/${name}/versions`, token: ada })).json<{
      remote: RemoteDetailBody;
      versions: Array<{ version: string; active: boolean }>;
    }>();
  const problem = (response: { json: <T>() => T }) =>
    response.json<{ code: string; detail: string; owner?: string }>();

  it('lets the platform client and an administrator create remotes, audited under their identities', async () => {
    const created = await Promise.all([
      createRemote({
        name: consoleRemote,
        title: 'Admin',
        path: `/it-admin-${suffix}`,
        navOrder: 90,
        requiredRoles: ['atrium-admin'],
        owner: 'atrium-platform',
      }),
      createRemote({ name: open, title: 'Open', path: `/${open}`, owner: 'atrium-deployer' }),
      createRemote({ name: theirs, title: 'Theirs', path: `/${theirs}`, owner: 'atrium-platform' }),
      createRemote(
        {
          name: admins,
          title: 'Admins only',
          path: `/${admins}`,
          requiredRoles: ['atrium-admin'],
          owner: 'atrium-deployer',
        },
        ada,
      ),
    ]);
    expect(created.map((response) => response.statusCode)).toEqual([201, 201, 201, 201]);
    expect(created[0]?.json()).toMatchObject({
      name: 'admin',
      owner: 'atrium-platform',
      activeVersion: null,
    });

    const audit = await api.request({ url: '/api/audit?pageSize=100', token: ada });
    const creators = Object.fromEntries(
      audit
        .json<{ items: Array<{ actor: string; action: string; target: string }> }>()
        .items.filter((item) => item.action === 'remote.created' && ours.includes(item.target))
        .map((item) => [item.target, item.actor]),
    );
    expect(creators).toEqual({
      [consoleRemote]: expect.stringMatching(/atrium-platform/) as unknown,
      [open]: expect.stringMatching(/atrium-platform/) as unknown,
      [theirs]: expect.stringMatching(/atrium-platform/) as unknown,
      [admins]: 'ada',
    });
  });

  it('refuses atrium-deployer creating a remote or changing who sees one (403), and nothing changes', async () => {
    const created = await createRemote(
      { name: `itmine${suffix}`, title: 'Mine', path: `/it-mine-${suffix}`, owner: 'atrium-deployer' },
      deployer,
    );
    expect(created.statusCode).toBe(403);
    expect(problem(created).code).toBe('insufficient_scope');

    const before = (await history(admins)).remote;
    for (const change of [{ requiredRoles: [] }, { path: '/hijacked' }, { owner: 'atrium-deployer' }]) {
      const response = await updateRemote(admins, change, deployer);
      expect(response.statusCode).toBe(403);
      expect(problem(response).code).toBe('insufficient_scope');
    }
    const consoleChange = await updateRemote(consoleRemote, { owner: 'atrium-deployer' }, deployer);
    expect(consoleChange.statusCode).toBe(403);
    expect((await history(admins)).remote).toEqual(before);
    expect((await history(consoleRemote)).remote.owner).toBe('atrium-platform');
    expect((await api.request({ url: `/api/remotes/itmine${suffix}/versions`, token: ada })).statusCode).toBe(
      404,
    );
  });

  it('lets the owning deployer publish with its client-credentials token, recorded under its client identity', async () => {
    const response = await publish(open, { version: '1.0.0', activate: true });
    expect(response.statusCode).toBe(201);
    const publishedBy = response.json<{ version: { publishedBy: string } }>().version.publishedBy;
    expect(publishedBy).toMatch(/atrium-deployer/);
    expect((await publish(admins, { version: '1.0.0', activate: true })).statusCode).toBe(201);
  });

  it('refuses atrium-deployer publishing to the admin console (403 not_remote_owner); the platform client still publishes and activates it', async () => {
    const attack = await publish(consoleRemote, { version: '6.6.6', activate: true });
    expect(attack.statusCode).toBe(403);
    expect(problem(attack)).toMatchObject({ code: 'not_remote_owner', owner: 'atrium-platform' });
    expect(problem(attack).detail).toMatch(/only its owner may publish/);
    expect((await history(consoleRemote)).versions).toEqual([]);

    expect((await publish(consoleRemote, { version: '1.0.0', activate: true }, platform)).statusCode).toBe(
      201,
    );
    expect((await publish(consoleRemote, { version: '1.1.0' }, platform)).statusCode).toBe(201);

    const rollout = await activate(consoleRemote, '1.1.0', deployer);
    expect(rollout.statusCode).toBe(403);
    expect(problem(rollout).code).toBe('not_remote_owner');
    expect((await history(consoleRemote)).remote.activeVersion).toBe('1.0.0');

    expect((await activate(consoleRemote, '1.1.0', platform)).json()).toMatchObject({
      activeVersion: '1.1.0',
    });
    expect(await names(ada)).toContain(consoleRemote);
    expect(await names(alice)).not.toContain(consoleRemote);
  });

  it("refuses atrium-deployer activating another team's remote (403); its owner and an administrator still can", async () => {
    expect((await publish(theirs, { version: '1.0.0' }, platform)).statusCode).toBe(201);
    expect((await publish(theirs, { version: '1.1.0', activate: true }, platform)).statusCode).toBe(201);

    const rollback = await activate(theirs, '1.0.0', deployer);
    expect(rollback.statusCode).toBe(403);
    expect(problem(rollback)).toMatchObject({ code: 'not_remote_owner', owner: 'atrium-platform' });
    expect((await history(theirs)).remote.activeVersion).toBe('1.1.0');

    expect((await activate(theirs, '1.0.0', platform)).json()).toMatchObject({ activeVersion: '1.0.0' });
    expect((await activate(theirs, '1.1.0', ada)).json()).toMatchObject({ activeVersion: '1.1.0' });
  });

  it('refuses requiredRoles, path and title on publish with 400 saying an administrator sets them; nothing changes', async () => {
    const before = (await history(admins)).remote;
    for (const [field, value] of [
      ['requiredRoles', []],
      ['path', `/${open}`],
      ['title', 'Everyone'],
    ] as const) {
      const response = await publish(admins, { version: '2.0.0', activate: true, [field]: value });
      expect(response.statusCode).toBe(400);
      const errors = response.json<{ errors: Array<{ field: string; message: string }> }>().errors;
      expect(errors.map((error) => error.field)).toEqual([field]);
      expect(errors[0]?.message).toMatch(/set by an administrator/);
    }
    const after = await history(admins);
    expect(after.remote).toEqual(before);
    expect(after.versions.map((v) => v.version)).toEqual(['1.0.0']);
    expect(await names(alice)).not.toContain(admins);
    // The owner's ordinary release goes through.
    expect((await publish(admins, { version: '2.0.0', activate: true })).statusCode).toBe(201);
  });

  it('lets an administrator and the platform client change who sees a remote, and audits what changed', async () => {
    expect(await names(alice)).not.toContain(admins);
    const opened = await updateRemote(admins, { requiredRoles: [] }, ada);
    expect(opened.statusCode).toBe(200);
    expect(await names(alice)).toContain(admins);
    const closed = await updateRemote(admins, { requiredRoles: ['atrium-admin'], title: 'Admins' }, platform);
    expect(closed.json()).toMatchObject({ requiredRoles: ['atrium-admin'], title: 'Admins' });
    expect(await names(alice)).not.toContain(admins);
    expect(await names(ada)).toContain(admins);

    const audit = await api.request({ url: '/api/audit?pageSize=100', token: ada });
    const updates = audit
      .json<{ items: Array<{ actor: string; action: string; target: string; details: unknown }> }>()
      .items.filter((item) => item.action === 'remote.updated' && item.target === admins);
    expect(updates.map((item) => [item.actor, item.details])).toEqual([
      [
        expect.stringMatching(/atrium-platform/),
        {
          remote: admins,
          changes: {
            title: { from: 'Admins only', to: 'Admins' },
            requiredRoles: { from: [], to: ['atrium-admin'] },
          },
        },
      ],
      ['ada', { remote: admins, changes: { requiredRoles: { from: ['atrium-admin'], to: [] } } }],
    ]);
  });

  it("refuses alice's token for publishing with 403 insufficient_scope", async () => {
    const response = await publish(open, { version: '9.0.0' }, alice);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'insufficient_scope' });
  });

  it('rolls back by activating the older version, and writes audit rows for each change', async () => {
    expect((await publish(open, { version: '1.1.0' })).statusCode).toBe(201);
    expect((await activate(open, '1.1.0', alice)).statusCode).toBe(403);
    expect((await activate(open, '1.1.0')).json()).toMatchObject({ activeVersion: '1.1.0' });
    const current = async () =>
      (await api.request({ url: '/api/remotes', token: alice }))
        .json<ListBody>()
        .remotes.find((r) => r.name === open);
    expect(await current()).toEqual({
      name: open,
      title: 'Open',
      path: `/${open}`,
      navOrder: 100,
      version: '1.1.0',
      entry: manifest(open, '1.1.0'),
      ...releaseHashes(open, '1.1.0'),
      requiredRoles: [],
    });
    // The owning deployer may roll its own remote back, too.
    expect((await activate(open, '1.0.0', deployer)).json()).toMatchObject({ activeVersion: '1.0.0' });
    expect(await current()).toMatchObject({ version: '1.0.0' });

    // The remote's own entries (its settings' and its versions'), each with the person's name from their
    // token, none for the deployer's client.
    const audit = await api.request({ url: `/api/audit?pageSize=100&remote=${open}`, token: ada });
    expect(audit.statusCode).toBe(200);
    const entries = audit.json<{
      items: Array<{ actor: string; actorName: string | null; action: string; target: string }>;
    }>().items;
    expect(entries.filter((item) => item.target !== open && !item.target.startsWith(`${open}@`))).toEqual([]);
    const events = entries.filter((item) => item.target.startsWith(`${open}@`));
    const deployerAccount = expect.stringMatching(/atrium-deployer/) as unknown;
    expect(events.map((item) => [item.actor, item.actorName, item.action, item.target])).toEqual([
      [deployerAccount, null, 'remote.version.activated', `${open}@1.0.0`],
      ['ada', 'Ada Lovelace', 'remote.version.activated', `${open}@1.1.0`],
      [deployerAccount, null, 'remote.version.published', `${open}@1.1.0`],
      [deployerAccount, null, 'remote.version.activated', `${open}@1.0.0`],
      [deployerAccount, null, 'remote.version.published', `${open}@1.0.0`],
    ]);
    expect(entries.at(-1)).toMatchObject({ action: 'remote.created', target: open });
    expect((await api.request({ url: '/api/audit', token: alice })).statusCode).toBe(403);
  });

  it('answers 409 version_exists for a duplicate version', async () => {
    const response = await publish(open, { version: '1.0.0' });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'version_exists', status: 409 });
  });

  it('answers 400 naming the bad fields', async () => {
    const response = await publish(open, {
      version: 'latest',
      manifestUrl: 'https://cdn.evil.test/x/mf-manifest.json',
      extra: true,
    });
    expect(response.statusCode).toBe(400);
    const fields = response.json<{ errors: Array<{ field: string }> }>().errors.map((error) => error.field);
    expect(fields).toEqual(expect.arrayContaining(['version', 'extra']));
    // The origin allowlist is checked after the shape: a body that is otherwise valid names manifestUrl.
    const origin = await publish(open, {
      version: '2.0.0',
      manifestUrl: 'https://cdn.evil.test/x/mf-manifest.json',
    });
    const errors = origin.json<{ errors: Array<{ field: string; message: string }> }>().errors;
    expect(errors.map((error) => error.field)).toEqual(['manifestUrl']);
    expect(errors[0]?.message).toContain('not allowed');
  });

  it.each([
    ['without', undefined],
    ['with a null', null],
  ])('refuses a publish %s hash with 400 naming the field, and writes nothing', async (_how, value) => {
    for (const field of ['integrity', 'manifestIntegrity']) {
      const response = await publish(open, { version: '4.0.0', activate: true, [field]: value });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      const errors = response.json<{ errors: Array<{ field: string; message: string }> }>().errors;
      expect(errors.map((error) => error.field)).toEqual([field]);
      expect(errors[0]?.message).toMatch(/is required: the SRI sha384 hash .* computes it/);
    }
    expect((await history(open)).versions.map((v) => v.version)).not.toContain('4.0.0');
    expect(
      await countRows(
        databaseUrl,
        `SELECT count(*)::int AS n FROM audit_event WHERE target = '${open}@4.0.0'`,
      ),
    ).toBe(0);
    expect(
      (await api.request({ url: '/api/remotes', token: alice })).json<ListBody>().remotes,
    ).toContainEqual(expect.objectContaining({ name: open, version: '1.0.0' }));
  });

  it("recognises PostgreSQL refusing a value that got past validation as the client's, and writes nothing", async () => {
    // Validation refuses NUL, which PostgreSQL text cannot hold (SQLSTATE 22021). The service is called
    // directly, as a value a future rule missed would reach it; the filter answers what isDataException
    // recognises with 400 request_rejected (problem.filter.spec.ts).
    const registry = api.app.get(RegistryService);
    const administrator: AuthenticatedUser = {
      sub: 'it-admin',
      username: 'it-admin',
      email: null,
      name: null,
      roles: ['atrium-admin'],
      actor: 'it-admin',
      clientId: 'atrium-shell',
      expiresAt: Number.MAX_SAFE_INTEGER,
      boundKeyThumbprint: null,
    };
    const nul = `itnul${suffix}`;
    const refusal: unknown = await RequestContext.create(api.app.get(MikroORM).em, () =>
      registry.create(administrator, {
        name: nul,
        title: 'Open\u0000',
        path: `/${nul}`,
        owner: 'atrium-deployer',
      }),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(isDataException(refusal)).toBe(true);
    expect((await api.request({ url: `/api/remotes/${nul}/versions`, token: ada })).statusCode).toBe(404);
    expect(
      await countRows(databaseUrl, `SELECT count(*)::int AS n FROM audit_event WHERE target = '${nul}'`),
    ).toBe(0);
  });

  it('lists every remote with its owner and versions for the admin console', async () => {
    const response = await api.request({ url: '/api/admin/remotes', token: ada });
    const remotes = response.json<{
      remotes: Array<RemoteDetailBody & { versions: Array<{ version: string }> }>;
    }>().remotes;
    const remote = remotes.find((r) => r.name === open);
    expect(remote?.activeVersion).toBe('1.0.0');
    expect(remote?.owner).toBe('atrium-deployer');
    expect(remote?.versions.map((v) => v.version)).toEqual(['1.1.0', '1.0.0']);
    expect(remotes.find((r) => r.name === consoleRemote)?.owner).toBe('atrium-platform');
  });

  it('keeps a version published as breaking with it and in its audit event, which its owning deployer reads; a deployer that does not own a remote may not list its versions', async () => {
    const published = await publish(open, { version: '3.0.0', breaking: true });
    expect(published.statusCode).toBe(201);
    expect(published.json()).toMatchObject({ version: { version: '3.0.0', breaking: true, active: false } });

    // The release CLI reads the active version with the owner's client-credentials token.
    const listed = await api.request({ url: `/api/remotes/${open}/versions`, token: deployer });
    expect(listed.statusCode).toBe(200);
    const versions = listed.json<{ versions: Array<{ version: string; breaking: boolean }> }>().versions;
    expect(versions.filter((version) => version.breaking).map((version) => version.version)).toEqual([
      '3.0.0',
    ]);
    expect(versions.length).toBeGreaterThan(1);
    const refused = await api.request({ url: `/api/remotes/${theirs}/versions`, token: deployer });
    expect(refused.statusCode).toBe(403);
    expect(problem(refused)).toMatchObject({ code: 'not_remote_owner', owner: 'atrium-platform' });

    const audit = await api.request({ url: '/api/audit?pageSize=100', token: ada });
    expect(
      audit
        .json<{ items: Array<{ action: string; target: string; details: Record<string, unknown> }> }>()
        .items.find((item) => item.target === `${open}@3.0.0`),
    ).toMatchObject({ action: 'remote.version.published', details: { version: '3.0.0', breaking: true } });
  });
});
