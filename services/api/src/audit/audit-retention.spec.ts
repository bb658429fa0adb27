import { MikroORM } from '@mikro-orm/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { AuditEvent } from './audit-event.entity.js';
import { AuditRetention } from './audit-retention.js';

const DAY_MS = 86_400_000;
const now = new Date('2026-11-23T12:00:00.000Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * DAY_MS);

describe('audit retention (AUDIT_RETENTION_DAYS)', () => {
  let api: TestApp | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  async function appWithEntries(retentionDays: string, ages: number[]) {
    api = await createTestApp({
      OIDC_ISSUER_URL: 'http://127.0.0.1:9/realms/none',
      AUDIT_RETENTION_DAYS: retentionDays,
    });
    const em = api.app.get(MikroORM).em.fork();
    for (const [index, age] of ages.entries()) {
      em.create(AuditEvent, {
        actor: 'ada',
        action: 'remote.activated',
        target: `remote-${index}`,
        details: { age },
        occurredAt: daysAgo(age),
      });
    }
    await em.flush();
    const remaining = async () =>
      (
        await api!.app
          .get(MikroORM)
          .em.fork()
          .find(AuditEvent, {}, { orderBy: { id: 'asc' } })
      ).map((event) => event.details['age']);
    return { retention: api.app.get(AuditRetention), remaining };
  }

  it('deletes every entry older than the retention, in batches, and keeps the rest', async () => {
    const { retention, remaining } = await appWithEntries('30', [400, 31, 90, 29, 0, 45, 30.5, 1]);

    // Batches of two: four batches, the last one short.
    expect(await retention.prune(now, 2)).toBe(5);
    expect(await remaining()).toEqual([29, 0, 1]);
    expect(await retention.prune(now, 2)).toBe(0);
  });

  it('keeps everything with a retention of 0', async () => {
    const { retention, remaining } = await appWithEntries('0', [4000, 1]);

    expect(await retention.prune(now, 2)).toBe(0);
    expect(await remaining()).toEqual([4000, 1]);
  });
});
