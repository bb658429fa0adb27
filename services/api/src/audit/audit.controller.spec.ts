import { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { releaseHashes } from '@atrium/test-support/releases';
import { AuditEvent } from './audit-event.entity.js';

interface Page {
  items: Array<{ id: number; actor: string; action: string; target: string; occurredAt: string }>;
  pageSize: number;
  nextCursor: string | null;
}

describe('GET /api/audit: keyset pages and filters', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let admin: string;
  const start = Date.parse('2026-11-01T00:00:00.000Z');

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
    admin = await issuer.mint({ claims: { realm_access: { roles: ['atrium-admin'] } } });
    const em = api.app.get(MikroORM).em.fork();
    // 45 entries, three per minute: entries share timestamps, so the order needs the id as well.
    for (let index = 0; index < 45; index += 1) {
      em.create(AuditEvent, {
        actor: index % 3 === 0 ? 'ada' : 'atrium-deployer',
        action: index % 5 === 0 ? 'remote.version.activated' : 'remote.version.published',
        target: `profile@1.0.${index}`,
        details: {},
        occurredAt: new Date(start + Math.floor(index / 3) * 60_000),
      });
    }
    await em.flush();
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  async function walk(query: string): Promise<Page['items']> {
    const seen: Page['items'] = [];
    let cursor: string | null = '';
    for (let pages = 0; cursor !== null; pages += 1) {
      expect(pages).toBeLessThan(50);
      const before = cursor ? `&before=${cursor}` : '';
      const response = await api.request({ url: `/api/audit?pageSize=20${query}${before}`, token: admin });
      expect(response.statusCode).toBe(200);
      const page = response.json<Page>();
      expect(page.items.length).toBeLessThanOrEqual(20);
      seen.push(...page.items);
      cursor = page.nextCursor;
    }
    return seen;
  }

  const newestFirst = (items: Page['items']) =>
    [...items].sort((a, b) => b.occurredAt.localeCompare(a.occurredAt) || b.id - a.id);

  it('walks every entry once, newest first, entries of the same instant by id, and ends with no cursor', async () => {
    const all = await walk('');
    expect(all).toHaveLength(45);
    expect(new Set(all.map((item) => item.id)).size).toBe(45);
    expect(all).toEqual(newestFirst(all));
  });

  it('walks only the entries of one actor, action or target', async () => {
    const ada = await walk('&actor=ada');
    expect(ada).toHaveLength(15);
    expect(ada.every((item) => item.actor === 'ada')).toBe(true);
    expect(ada).toEqual(newestFirst(ada));

    const activations = await walk('&action=remote.version.activated&actor=ada');
    expect(activations.map((item) => item.target)).toEqual([
      'profile@1.0.30',
      'profile@1.0.15',
      'profile@1.0.0',
    ]);
    expect((await walk('&target=profile@1.0.7')).map((item) => item.target)).toEqual(['profile@1.0.7']);
  });

  it('walks a time range, from inclusive and to exclusive', async () => {
    const from = new Date(start + 2 * 60_000).toISOString();
    const to = new Date(start + 4 * 60_000).toISOString();
    const range = await walk(`&from=${from}&to=${to}`);
    expect(range.map((item) => item.target).sort()).toEqual([
      'profile@1.0.10',
      'profile@1.0.11',
      'profile@1.0.6',
      'profile@1.0.7',
      'profile@1.0.8',
      'profile@1.0.9',
    ]);
  });
});

describe('GET /api/audit: who by name, and one remote', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let grace: string;
  let platform: string;
  let deployer: string;

  interface Entry {
    actor: string;
    actorName: string | null;
    action: string;
    target: string;
  }

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer.issuer,
      OIDC_ALLOWED_CLIENTS: 'atrium-shell,atrium-deployer,atrium-platform',
    });
    await api.waitForIssuer();
    grace = await issuer.mint({
      claims: {
        sub: 'grace',
        preferred_username: 'grace',
        name: 'Grace Hopper',
        realm_access: { roles: ['atrium-user', 'atrium-admin'] },
      },
    });
    // Client-credentials tokens: a service account's user name and no display name.
    const serviceAccount = (clientId: string, roles: string[]) =>
      issuer.mint({
        claims: {
          sub: `sa-${clientId}`,
          preferred_username: `service-account-${clientId}`,
          name: undefined,
          azp: clientId,
          realm_access: { roles },
        },
      });
    platform = await serviceAccount('atrium-platform', ['remote-publisher', 'atrium-admin']);
    deployer = await serviceAccount('atrium-deployer', ['remote-publisher']);
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const entries = async (query: string, token = grace): Promise<Entry[]> => {
    const response = await api.request({ url: `/api/audit?pageSize=100${query}`, token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json<{ items: Entry[] }>().items;
  };

  it("records the person's display name with what they did and none for a client, and returns both", async () => {
    for (const name of ['names', 'other']) {
      const created = await api.request({
        method: 'POST',
        url: '/api/remotes',
        token: grace,
        body: { name, title: 'Names', path: `/${name}`, owner: 'atrium-deployer' },
      });
      expect(created.statusCode, created.body).toBe(201);
    }
    const updated = await api.request({
      method: 'PATCH',
      url: '/api/remotes/names',
      token: platform,
      body: { title: 'Named' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const published = await api.request({
      method: 'POST',
      url: '/api/remotes/names/versions',
      token: deployer,
      body: {
        version: '1.0.0',
        manifestUrl: 'http://localhost:4100/names/1.0.0/mf-manifest.json',
        ...releaseHashes('names', '1.0.0'),
      },
    });
    expect(published.statusCode, published.body).toBe(201);
    const activated = await api.request({
      method: 'PUT',
      url: '/api/remotes/names/active',
      token: grace,
      body: { version: '1.0.0' },
    });
    expect(activated.statusCode, activated.body).toBe(200);

    // Only the entries about `names`, its versions included, newest first.
    expect(
      (await entries('&remote=names')).map(({ actor, actorName, action, target }) => [
        actor,
        actorName,
        action,
        target,
      ]),
    ).toEqual([
      ['grace', 'Grace Hopper', 'remote.version.activated', 'names@1.0.0'],
      ['service-account-atrium-deployer', null, 'remote.version.published', 'names@1.0.0'],
      ['service-account-atrium-platform', null, 'remote.updated', 'names'],
      ['grace', 'Grace Hopper', 'remote.created', 'names'],
    ]);
    expect((await entries('&remote=other')).map((entry) => entry.target)).toEqual(['other']);
    expect(await entries('&remote=nothing')).toEqual([]);
    // The filters combine.
    expect(
      (await entries('&remote=names&actor=grace&action=remote.created')).map((entry) => entry.target),
    ).toEqual(['names']);
  });

  it('keeps a display name longer than the column to its first 255 characters', async () => {
    const long = await issuer.mint({
      claims: {
        sub: 'long',
        preferred_username: 'long',
        name: 'L'.repeat(300),
        realm_access: { roles: ['atrium-admin'] },
      },
    });
    const created = await api.request({
      method: 'POST',
      url: '/api/remotes',
      token: long,
      body: { name: 'longname', title: 'Long', path: '/long-name', owner: 'atrium-deployer' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const [entry] = await entries('&remote=longname');
    expect(entry?.actorName).toBe('L'.repeat(255));
  });

  it('refuses an unknown action or a remote that is no remote name with 400 naming the field', async () => {
    for (const [query, field] of [
      ['action=remote.deleted', 'action'],
      ['action=keycloak.LOGIN', 'action'],
      ['remote=Profile', 'remote'],
      ['remote=pro-file', 'remote'],
    ] as const) {
      const response = await api.request({ url: `/api/audit?${query}`, token: grace });
      expect(response.statusCode, query).toBe(400);
      expect(response.json(), query).toMatchObject({
        code: 'validation_failed',
        errors: [expect.objectContaining({ field }) as unknown],
      });
    }
    // A copied Keycloak event is an action too.
    expect(await entries('&action=keycloak.login_error')).toEqual([]);
  });
});
