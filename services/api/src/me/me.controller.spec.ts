import { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { SubjectErasure } from '../account/index.js';
import { AuditEvent, AuditService } from '../audit/index.js';
import { UserProfile } from './user-profile.entity.js';

describe('/api/me on SQLite', () => {
  let issuer: LocalIssuer;
  let api: TestApp;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const tokenFor = (sub: string, claims: Record<string, unknown> = {}) =>
    issuer.mint({ claims: { sub, ...claims } });

  it('creates the profile from the token on first call, with the default theme', async () => {
    const response = await api.request({ url: '/api/me', token: await tokenFor('first-call') });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      sub: 'first-call',
      username: 'ada',
      name: 'Ada Lovelace',
      email: 'ada@example.test',
      roles: ['atrium-user'],
      preferences: { theme: 'system' },
    });
    // A person's profile is not kept in the browser's cache (nor a refusal of their credentials).
    expect(response.headers['cache-control']).toBe('no-store');
    const refused = await api.request({ url: '/api/me', headers: { authorization: 'Bearer not-a-token' } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect((await api.request({ url: '/api/health/live' })).headers['cache-control']).toBeUndefined();
  });

  it("refuses a token whose account was deleted: the profile stays gone, others' are untouched", async () => {
    const orm = api.app.get(MikroORM);
    const token = await tokenFor('deleted-person');
    expect((await api.request({ url: '/api/me', token })).statusCode).toBe(200);
    // What KeycloakEventsPoller does once Keycloak reports the deletion.
    await orm.em
      .fork()
      .transactional((em) => api.app.get(SubjectErasure).erase(em, 'deleted-person', new Date()));

    // The token is still valid: its holder reads, then tries to store preferences again.
    for (const request of [
      { url: '/api/me' },
      { method: 'PUT' as const, url: '/api/me/preferences', body: { theme: 'dark' } },
    ]) {
      const refused = await api.request({ ...request, token });
      expect(refused.statusCode, request.url).toBe(401);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.json()).toMatchObject({ code: 'account_deleted' });
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    expect(await orm.em.fork().count(UserProfile, { id: 'deleted-person' })).toBe(0);
    // Everyone else carries on.
    const other = await api.request({ url: '/api/me', token: await tokenFor('someone-else') });
    expect(other.statusCode).toBe(200);
  });

  it("drops the display name from the audit entries a deleted person wrote, and no one else's", async () => {
    const orm = api.app.get(MikroORM);
    const audit = api.app.get(AuditService);
    const writer = { preferred_username: 'writer', name: 'Wanda Writer' };
    expect(
      (await api.request({ url: '/api/me', token: await tokenFor('writer-sub', writer) })).statusCode,
    ).toBe(200);
    await orm.em.fork().transactional((em) => {
      for (const [actor, actorName] of [
        ['writer', 'Wanda Writer'],
        ['reader', 'Rita Reader'],
      ] as const) {
        audit.record(em, { actor, actorName, action: 'remote.updated', target: 'names', details: {} });
      }
      return Promise.resolve();
    });
    await orm.em
      .fork()
      .transactional((em) => api.app.get(SubjectErasure).erase(em, 'writer-sub', new Date()));

    const rows = await orm.em.fork().find(AuditEvent, { target: 'names' }, { orderBy: { id: 'asc' } });
    expect(rows.map((row) => [row.actor, row.actorName])).toEqual([
      ['writer', null],
      ['reader', 'Rita Reader'],
    ]);
  });

  it('refreshes username, email and name from later tokens', async () => {
    await api.request({ url: '/api/me', token: await tokenFor('renamed') });
    const response = await api.request({
      url: '/api/me',
      token: await tokenFor('renamed', {
        preferred_username: 'ada.l',
        email: 'ada@new.test',
        name: 'Ada King',
      }),
    });
    expect(response.json()).toMatchObject({ username: 'ada.l', email: 'ada@new.test', name: 'Ada King' });
  });

  it('writes nothing while the claims are unchanged, and writes them once they change', async () => {
    const orm = api.app.get(MikroORM);
    await api.request({ url: '/api/me', token: await tokenFor('steady') });
    // A marker only a write would replace, and a theme the read must return as stored.
    const marker = new Date('2001-02-03T04:05:06.000Z');
    await orm.em.fork().nativeUpdate(UserProfile, { id: 'steady' }, { updatedAt: marker, theme: 'dark' });
    const updatedAt = async () =>
      (await orm.em.fork().findOneOrFail(UserProfile, { id: 'steady' })).updatedAt.toISOString();

    const steady = await api.request({ url: '/api/me', token: await tokenFor('steady') });
    expect(steady.json()).toMatchObject({ username: 'ada', preferences: { theme: 'dark' } });
    expect(await updatedAt()).toBe(marker.toISOString());

    const changed = await api.request({
      url: '/api/me',
      token: await tokenFor('steady', { email: 'ada@elsewhere.test' }),
    });
    expect(changed.json()).toMatchObject({ email: 'ada@elsewhere.test', preferences: { theme: 'dark' } });
    expect(await updatedAt()).not.toBe(marker.toISOString());
  });

  it('answers null for claims the token does not carry and [] without realm roles', async () => {
    const token = await issuer.mint({
      claims: {
        sub: 'service',
        preferred_username: undefined,
        email: undefined,
        name: undefined,
        realm_access: undefined,
      },
    });
    const response = await api.request({ url: '/api/me', token });
    expect(response.json()).toEqual({
      sub: 'service',
      username: 'service',
      name: null,
      email: null,
      roles: [],
      preferences: { theme: 'system' },
    });
  });

  it('keeps a 300-character name to the 255 characters a profile stores, in the answer and the row', async () => {
    const name = `${'N'.repeat(299)}!`;
    const response = await api.request({ url: '/api/me', token: await tokenFor('long-name', { name }) });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ name: string }>().name).toBe('N'.repeat(255));
    const row = await api.app.get(MikroORM).em.fork().findOneOrFail(UserProfile, { id: 'long-name' });
    expect(row.name).toBe('N'.repeat(255));
  });

  it('treats a user name or e-mail too long to store as absent, and drops NUL characters from the name', async () => {
    const token = await tokenFor('oversized', {
      preferred_username: 'u'.repeat(256),
      email: `${'e'.repeat(320)}@example.test`,
      name: 'Ada\u0000 Lovelace',
    });
    const response = await api.request({ url: '/api/me', token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ username: 'oversized', email: null, name: 'Ada Lovelace' });
  });

  it('creates one profile when two first requests race', async () => {
    const token = await tokenFor('racer');
    const responses = await Promise.all([1, 2, 3].map(() => api.request({ url: '/api/me', token })));
    expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    const rows = await api.app.get(MikroORM).em.fork().find(UserProfile, { id: 'racer' });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ username: 'ada', theme: 'system' });
  });

  it('stores the theme and returns the updated document; later reads see it', async () => {
    const token = await tokenFor('themer');
    const put = await api.request({
      method: 'PUT',
      url: '/api/me/preferences',
      token,
      body: { theme: 'dark' },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ sub: 'themer', preferences: { theme: 'dark' } });
    const get = await api.request({ url: '/api/me', token });
    expect(get.json()).toMatchObject({ preferences: { theme: 'dark' } });
  });

  it("writes nothing for a new user when storing the theme fails after the profile's creation", async () => {
    const orm = api.app.get(MikroORM);
    // A real database failure of the theme write, for this user only: the profile row comes first.
    await orm.em.getConnection().execute(
      `CREATE TRIGGER fail_theme_write BEFORE UPDATE OF theme ON user_profile WHEN NEW.id = 'half-written'
       BEGIN SELECT RAISE(ABORT, 'theme write failed'); END`,
    );
    try {
      const response = await api.request({
        method: 'PUT',
        url: '/api/me/preferences',
        token: await tokenFor('half-written'),
        body: { theme: 'dark' },
      });
      expect(response.statusCode).toBe(500);
      expect(await orm.em.fork().count(UserProfile, { id: 'half-written' })).toBe(0);
    } finally {
      await orm.em.getConnection().execute('DROP TRIGGER fail_theme_write');
    }
  });

  it.each([
    ['an unknown theme', { theme: 'purple' }, 'theme'],
    ['a missing theme', {}, 'theme'],
    ['an unknown field', { theme: 'light', fontSize: 12 }, 'fontSize'],
    ['a body that is not an object', ['dark'], '(body)'],
  ])('refuses %s with 400 naming the field', async (_name, body, field) => {
    const token = await tokenFor('validator');
    const response = await api.request({ method: 'PUT', url: '/api/me/preferences', token, body });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = response.json<{ errors: Array<{ field: string; message: string }> }>();
    expect(problem).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    const after = await api.request({ url: '/api/me', token });
    expect(after.json()).toMatchObject({ preferences: { theme: 'system' } });
  });
});
