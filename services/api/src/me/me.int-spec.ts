import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM, RequestContext } from '@mikro-orm/core';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { countRows } from '@atrium/test-support/postgres';
import { fetchDeployerToken } from '@atrium/test-support/keycloak';
import { type AccessTokenClaims, toAuthenticatedUser } from '../auth/index.js';
import type { DatabaseTarget } from '../config/index.js';
import { ormOptions } from '../database/index.js';
import { MeService } from './me.service.js';
import { UserProfile } from './user-profile.entity.js';

const issuer = inject('oidcIssuerUrl');
const sqliteDir = mkdtempSync(join(tmpdir(), 'atrium-it-sqlite-'));

describe.each([
  ['PostgreSQL', inject('databaseUrl')],
  ['SQLite', `sqlite:${join(sqliteDir, 'atrium.db')}`],
])('/api/me with a Keycloak token on %s', (_driver, databaseUrl) => {
  let api: TestApp;
  let token: string;

  beforeAll(async () => {
    api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
    await api.waitForIssuer();
    token = await fetchDeployerToken(issuer);
  });

  afterAll(async () => {
    await api?.close();
  });

  async function readRow(database: DatabaseTarget, id: string) {
    // A separate ORM: proves the row is in the database, not in the app's identity map.
    const orm = await MikroORM.init(
      ormOptions(database, { allowGlobalContext: true, entities: [UserProfile] }),
    );
    try {
      return await orm.em.fork().findOne(UserProfile, { id });
    } finally {
      await orm.close(true);
    }
  }

  it('accepts the client-credentials token of atrium-deployer and answers its profile', async () => {
    const response = await api.request({ url: '/api/me', token });
    expect(response.statusCode).toBe(200);
    const me = response.json<{
      sub: string;
      username: string;
      roles: string[];
      preferences: { theme: string };
    }>();
    // The deployer client only has the basic and roles scopes: no preferred_username, so the API falls back to sub.
    const claims = decodeJwt(token);
    expect(me.sub).toBe(claims.sub);
    expect(me.username).toBe(claims['preferred_username'] ?? claims.sub);
    expect(me.roles).toContain('remote-publisher');
    expect(me.preferences).toEqual({ theme: 'system' });
    expect(me.sub).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('stores the preference and reads it back, in the database itself', async () => {
    const put = await api.request({
      method: 'PUT',
      url: '/api/me/preferences',
      token,
      body: { theme: 'dark' },
    });
    expect(put.statusCode).toBe(200);
    const get = await api.request({ url: '/api/me', token });
    const me = get.json<{ sub: string; username: string; preferences: { theme: string } }>();
    expect(me.preferences.theme).toBe('dark');

    const row = await readRow(api.config.database, me.sub);
    expect(row).toMatchObject({ id: me.sub, username: me.username, theme: 'dark' });
    expect(row?.updatedAt.getTime()).toBeGreaterThanOrEqual(row?.createdAt.getTime() ?? Infinity);
  });
});

describe('MeService on PostgreSQL: claims wider than their columns, racing first requests', () => {
  let api: TestApp;

  beforeAll(async () => {
    api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: inject('databaseUrl') });
  });

  afterAll(async () => {
    await api?.close();
  });

  // The service as a request reaches it, for callers no realm user here can be: claims Keycloak could
  // issue (a first and last name of 255 characters each make `name` 511 long), or a subject never seen.
  const userWith = (claims: Omit<AccessTokenClaims, 'sub'>) =>
    toAuthenticatedUser({ sub: randomUUID(), exp: Math.floor(Date.now() / 1000) + 60, ...claims });
  // Each call in a RequestContext of its own, as the interceptor gives every request.
  const inRequest = <T>(handle: (me: MeService) => Promise<T>) =>
    RequestContext.create(api.app.get(MikroORM).em, () => handle(api.app.get(MeService)));
  const getMe = (claims: Omit<AccessTokenClaims, 'sub'>) => {
    const user = userWith(claims);
    return inRequest((me) => me.getMe(user));
  };

  it("stores a 511-character Keycloak name cut to the column's 255 characters instead of failing", async () => {
    const me = await getMe({
      preferred_username: 'long.name',
      name: `${'F'.repeat(255)} ${'L'.repeat(255)}`,
    });
    expect(me.name).toBe('F'.repeat(255));
    const row = await api.app.get(MikroORM).em.fork().findOneOrFail(UserProfile, { id: me.sub });
    expect(row.name).toBe('F'.repeat(255));
  });

  it('stores a profile whose claims hold NUL characters or are too long for their columns', async () => {
    const me = await getMe({
      preferred_username: 'u'.repeat(256),
      email: `${'e'.repeat(320)}@example.test`,
      name: 'Ada\u0000 Lovelace',
    });
    expect(me).toMatchObject({ username: me.sub, email: null, name: 'Ada Lovelace' });
    const row = await api.app.get(MikroORM).em.fork().findOneOrFail(UserProfile, { id: me.sub });
    expect(row).toMatchObject({ username: me.sub, email: null, name: 'Ada Lovelace' });
  });

  it("creates one profile when a new user's first reads and writes race on the connection pool", async () => {
    const user = userWith({ preferred_username: 'racer', name: 'Ada Racer' });
    const results = await Promise.all([
      ...[1, 2, 3, 4].map(() => inRequest((me) => me.getMe(user))),
      ...[1, 2].map(() => inRequest((me) => me.updatePreferences(user, { theme: 'dark' }))),
    ]);
    expect(results.map((me) => me.sub)).toEqual(Array(6).fill(user.sub));
    expect(
      await countRows(
        inject('databaseUrl'),
        `SELECT count(*)::int AS n FROM user_profile WHERE id = '${user.sub}'`,
      ),
    ).toBe(1);
    const row = await api.app.get(MikroORM).em.fork().findOneOrFail(UserProfile, { id: user.sub });
    expect(row).toMatchObject({ username: 'racer', name: 'Ada Racer', theme: 'dark' });
  });
});

afterAll(() => {
  rmSync(sqliteDir, { recursive: true, force: true });
});
