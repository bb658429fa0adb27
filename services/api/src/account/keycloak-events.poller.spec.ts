import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { AuditEvent } from '../audit/index.js';
import { UserProfile } from '../me/index.js';
import { type KeycloakAdminEvent, KeycloakAdminClient, type KeycloakEvent } from './keycloak-admin.client.js';
import { KeycloakEventsPoller } from './keycloak-events.poller.js';

/*
 * The cursor logic against a scripted Keycloak (its event lists, newest first, paged by first/max); the
 * real Keycloak is in account.int-spec.ts.
 */
describe('KeycloakEventsPoller on SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atrium-poller-'));
  const env = () => ({ OIDC_ISSUER_URL: issuer.issuer, DATABASE_URL: `sqlite:${join(dir, 'atrium.db')}` });
  let issuer: LocalIssuer;
  let api: TestApp;
  let events: KeycloakEvent[] = [];
  let adminEvents: KeycloakAdminEvent[] = [];

  const page = <T extends { time: number }>(list: T[], first = 0, max = 100) =>
    Promise.resolve([...list].sort((a, b) => b.time - a.time).slice(first, first + max));
  const boot = async () => {
    api = await createTestApp(env());
    const keycloak = api.app.get(KeycloakAdminClient);
    vi.spyOn(keycloak, 'events').mockImplementation((query) => page(events, query.first, query.max));
    vi.spyOn(keycloak, 'adminEvents').mockImplementation((query) =>
      page(adminEvents, query.first, query.max),
    );
  };
  const audit = () =>
    api.app
      .get(MikroORM)
      .em.fork()
      .find(AuditEvent, {}, { orderBy: { id: 'asc' } });
  const poll = () => api.app.get(KeycloakEventsPoller).pollOnce();

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    await boot();
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies each event once, in time order, also events sharing a millisecond that arrive later', async () => {
    events = [
      {
        id: 'e2',
        time: 2000,
        type: 'LOGIN_ERROR',
        userId: 'u1',
        error: 'invalid_user_credentials',
        details: { username: 'ada' },
      },
      { id: 'e1', time: 1000, type: 'LOGIN', userId: 'u1', details: { username: 'ada' } },
    ];
    adminEvents = [
      {
        id: 'a1',
        time: 1500,
        operationType: 'ACTION',
        resourceType: 'USER',
        resourcePath: 'users/u1/reset-password',
        authDetails: { userId: 'admin-1' },
      },
    ];
    expect(await poll()).toBe(3);
    expect(await poll()).toBe(0);
    events.push({ id: 'e3', time: 2000, type: 'LOGOUT', userId: 'u1' });
    expect(await poll()).toBe(1);
    const rows = await audit();
    expect(rows.map((row) => [row.action, row.actor, row.target])).toEqual([
      ['keycloak.login', 'ada', 'user:u1'],
      ['keycloak.login_error', 'ada', 'user:u1'],
      ['keycloak.admin.action_user', 'admin-1', 'user:u1'],
      ['keycloak.logout', 'u1', 'user:u1'],
    ]);
    expect(rows[1]?.details).toMatchObject({ source: 'keycloak', error: 'invalid_user_credentials' });
    expect(rows[1]?.occurredAt.getTime()).toBe(2000);
  });

  it('resumes from the stored cursor after a restart, and pages through more than one page', async () => {
    await api.close();
    for (let index = 0; index < 250; index++) {
      events.push({ id: `bulk-${index}`, time: 3000 + index, type: 'LOGIN', userId: 'u2' });
    }
    await boot();
    expect(await poll()).toBe(250);
    expect(await poll()).toBe(0);
    const rows = await audit();
    expect(rows).toHaveLength(254);
    expect(new Set(rows.map((row) => `${row.action}/${row.occurredAt.getTime()}`)).size).toBe(254);
  });

  it('copies nothing and moves no cursor when Keycloak fails half-way', async () => {
    events.push({ id: 'late', time: 9000, type: 'LOGIN', userId: 'u3' });
    const keycloak = api.app.get(KeycloakAdminClient);
    vi.spyOn(keycloak, 'adminEvents').mockRejectedValueOnce(new Error('down'));
    // The login events commit on their own; the admin stream fails and is retried next time.
    await expect(poll()).rejects.toThrow('down');
    adminEvents.push({
      id: 'a2',
      time: 9500,
      operationType: 'UPDATE',
      resourceType: 'USER',
      resourcePath: 'users/u3',
    });
    expect(await poll()).toBe(1);
    expect((await audit()).filter((row) => row.target === 'user:u3')).toHaveLength(2);
  });

  /** The rows that name `id` anywhere. */
  const naming = async (id: string) =>
    (await audit()).filter((row) => `${row.actor} ${row.target} ${JSON.stringify(row.details)}`.includes(id));
  const profileOf = (id: string) => api.app.get(MikroORM).em.fork().findOne(UserProfile, { id });
  const saveProfile = (id: string, username: string) =>
    api.app
      .get(MikroORM)
      .em.fork()
      .insert(UserProfile, { id, username, theme: 'dark', createdAt: new Date(), updatedAt: new Date() });

  it('erases a person Keycloak says deleted their own account, and names them nowhere, later events included', async () => {
    await saveProfile('u4', 'grace');
    events.push({ id: 'g1', time: 10_000, type: 'LOGIN', userId: 'u4', details: { username: 'grace' } });
    expect(await poll()).toBe(1);
    events.push(
      { id: 'g2', time: 11_000, type: 'DELETE_ACCOUNT', userId: 'u4', details: { username: 'grace' } },
      { id: 'g3', time: 11_001, type: 'LOGOUT', userId: 'u4', details: { username: 'grace' } },
    );
    expect(await poll()).toBe(2);
    expect(await profileOf('u4')).toBeNull();
    expect(await naming('u4')).toEqual([]);
    expect(await naming('grace')).toEqual([]);
    const rows = (await audit()).filter((row) => row.occurredAt.getTime() >= 10_000);
    const anonymous = rows.find((row) => row.action === 'account.deleted')?.actor;
    expect(anonymous).toMatch(/^anonymous-[0-9a-f]{16}$/);
    expect(rows.map((row) => [row.action, row.actor, row.target])).toEqual([
      ['keycloak.login', anonymous, `user:${anonymous}`],
      ['account.deleted', anonymous, `account:${anonymous}`],
      ['keycloak.delete_account', anonymous, `user:${anonymous}`],
      ['keycloak.logout', anonymous, `user:${anonymous}`],
    ]);
  });

  it('erases a person an administrator deleted, but no one for a failed or other deletion', async () => {
    await saveProfile('u5', 'hedy');
    await saveProfile('u6', 'ida');
    adminEvents.push(
      { id: 'a3', time: 12_000, operationType: 'DELETE', resourceType: 'USER', resourcePath: 'users/u5' },
      {
        id: 'a4',
        time: 12_001,
        operationType: 'DELETE',
        resourceType: 'USER',
        resourcePath: 'users/u6',
        error: 'forbidden',
      },
      {
        id: 'a5',
        time: 12_002,
        operationType: 'DELETE',
        resourceType: 'USER_SESSION',
        resourcePath: 'users/u6/sessions/s1',
      },
    );
    events.push({
      id: 'i1',
      time: 12_003,
      type: 'DELETE_ACCOUNT_ERROR',
      userId: 'u6',
      error: 'user_delete_error',
    });
    expect(await poll()).toBe(4);
    expect(await profileOf('u5')).toBeNull();
    expect(await naming('u5')).toEqual([]);
    expect(await profileOf('u6')).toMatchObject({ username: 'ida', theme: 'dark' });
    expect((await naming('u6')).length).toBe(3);
  });
});
