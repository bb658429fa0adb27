import { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
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
