import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import type { BoundToken } from '../../test/dpop-key.js';
import { countRows, fetchDeployerToken, signIn } from '../../test/integration-context.js';
import { KeycloakAdminClient, KeycloakAdminError } from './keycloak-admin.client.js';
import { KeycloakEventsPoller, SETTLE_MS } from './keycloak-events.poller.js';

/** Lets Keycloak's latest events settle, so that the next poll copies them. */
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 500));

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');
const keycloakBase = issuer.replace(/\/realms\/[^/]+$/, '');
const adminApi = `${keycloakBase}/admin/realms/atrium`;

/** The master realm's bootstrap administrator: only the test itself uses it, to arrange and to look. */
async function masterAdmin(): Promise<(method: string, path: string, body?: unknown) => Promise<Response>> {
  const response = await fetch(`${keycloakBase}/realms/master/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'password',
      client_id: 'admin-cli',
      username: process.env['KEYCLOAK_ADMIN_USERNAME'] ?? 'admin',
      password: process.env['KEYCLOAK_ADMIN_PASSWORD'] ?? 'admin',
    }),
  });
  const { access_token: token } = (await response.json()) as { access_token: string };
  return (method, path, body) =>
    fetch(`${adminApi}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}

interface Person {
  readonly username: string;
  readonly password: string;
  readonly id: string;
}

describe('/api/account against the real Keycloak, on PostgreSQL', () => {
  let api: TestApp;
  let admin: Awaited<ReturnType<typeof masterAdmin>>;

  async function createPerson(): Promise<Person> {
    const username = `acct-${randomBytes(4).toString('hex')}`;
    const password = `Pw-${randomBytes(9).toString('base64url')}`;
    const created = await admin('POST', '/users', {
      username,
      email: `${username}@atrium.test`,
      firstName: 'Test',
      lastName: 'Person',
      enabled: true,
      emailVerified: true,
      credentials: [{ type: 'password', value: password, temporary: false }],
    });
    expect(created.status).toBe(201);
    const id = created.headers.get('location')!.split('/').at(-1)!;
    return { username, password, id };
  }

  const sessionIdsOf = async (person: Person) =>
    ((await (await admin('GET', `/users/${person.id}/sessions`)).json()) as { id: string }[]).map(
      (s) => s.id,
    );
  const sidOf = (token: BoundToken) => decodeJwt(token.accessToken)['sid'] as string;
  const auditCount = (where: string) =>
    countRows(databaseUrl, `select count(*)::int as n from audit_event where ${where}`);

  beforeAll(async () => {
    admin = await masterAdmin();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
    await api.waitForIssuer();
  });

  afterAll(async () => {
    await api?.close();
  });

  it("lists the caller's sessions and signs out only the others, whatever id an attacker adds", async () => {
    const person = await createPerson();
    const here = await signIn(issuer, person.username, person.password);
    const elsewhere = await signIn(issuer, person.username, person.password);
    const attacker = await createPerson();
    const attackerToken = await signIn(issuer, attacker.username, attacker.password);

    const list = await api.request({ url: '/api/account/sessions', token: here });
    expect(list.statusCode).toBe(200);
    const { sessions } = list.json<{
      sessions: { id: string; current: boolean; applications: string[] }[];
    }>();
    expect(sessions.map((s) => s.id).sort()).toEqual([sidOf(here), sidOf(elsewhere)].sort());
    expect(sessions.find((s) => s.current)?.id).toBe(sidOf(here));
    expect(sessions[0]?.applications).toEqual(['atrium-shell']);

    // The attacker names the person's user and session everywhere a server might look: no effect on them.
    const attack = await api.request({
      method: 'POST',
      url: `/api/account/sessions/sign-out-others?userId=${person.id}&sessionId=${sidOf(here)}`,
      token: attackerToken,
      body: { userId: person.id, sub: person.id, sessionId: sidOf(elsewhere) },
    });
    expect(attack.statusCode).toBe(200);
    expect(attack.json()).toEqual({ signedOut: 0 });
    expect((await sessionIdsOf(person)).sort()).toEqual([sidOf(here), sidOf(elsewhere)].sort());

    const signOut = await api.request({
      method: 'POST',
      url: '/api/account/sessions/sign-out-others',
      token: here,
    });
    expect(signOut.json()).toEqual({ signedOut: 1 });
    expect(await sessionIdsOf(person)).toEqual([sidOf(here)]);
    // The person keeps working in this session.
    expect((await api.request({ url: '/api/account/sessions', token: here })).statusCode).toBe(200);
  });

  it('refuses a token of another client (azp): a machine cannot act on its own service account', async () => {
    const deployer = await fetchDeployerToken(issuer);
    for (const [method, url] of [
      ['GET', '/api/account/sessions'],
      ['GET', '/api/account/activity'],
      ['POST', '/api/account/sessions/sign-out-others'],
    ] as const) {
      const response = await api.request({ method, url, token: deployer });
      expect(response.statusCode, url).toBe(403);
      expect(response.json<{ code: string }>().code).toBe('personal_session_required');
    }
    const sub = decodeJwt(deployer).sub!;
    const deletion = await api.request({
      method: 'POST',
      url: '/api/account/deletion',
      token: deployer,
      body: { confirmation: sub },
    });
    expect(deletion.statusCode).toBe(403);
    expect((await admin('GET', `/users/${sub}`)).status).toBe(200);
  });

  it('has a service client that cannot go beyond its roles: no clients, no client secrets, no realm settings', async () => {
    const keycloak = api.app.get(KeycloakAdminClient);
    const json = async <T>(path: string) => (await (await admin('GET', path)).json()) as T;
    const [management] = await json<{ id: string }[]>('/clients?clientId=realm-management');
    const [self] = await json<{ id: string }[]>('/clients?clientId=atrium-account-admin');
    const realmAdmin = await json<{ id: string; name: string }>(
      `/clients/${management!.id}/roles/realm-admin`,
    );
    const serviceUser = await json<{ id: string }>(`/clients/${self!.id}/service-account-user`);
    const attempts: [string, () => Promise<unknown>][] = [
      ['read the clients and their secrets', () => keycloak.call('GET', '/clients')],
      ['change the realm', () => keycloak.call('PUT', '', { body: { bruteForceProtected: false } })],
      ['create a client', () => keycloak.call('POST', '/clients', { body: { clientId: 'evil' } })],
      [
        'make itself a realm administrator',
        () =>
          keycloak.call('POST', `/users/${serviceUser.id}/role-mappings/clients/${management!.id}`, {
            body: [realmAdmin],
          }),
      ],
    ];
    for (const [what, attempt] of attempts) {
      const error = await attempt().then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, what).toBeInstanceOf(KeycloakAdminError);
      expect((error as KeycloakAdminError).status, what).toBe(403);
    }
    const realm = (await (await admin('GET', '')).json()) as { bruteForceProtected: boolean };
    expect(realm.bruteForceProtected).toBe(true);
    expect(await json('/clients?clientId=evil')).toEqual([]);
    const granted = await json<{ name: string }[]>(
      `/users/${serviceUser.id}/role-mappings/clients/${management!.id}`,
    );
    // Users are reached through the realm's admin permissions (v2), which no legacy role may bypass: see below.
    expect(granted.map((role) => role.name)).toEqual(['view-events']);
  });

  it('cannot make anyone an administrator, add them to a group or impersonate them', async () => {
    // The attacker holds the API's Keycloak secret: every attempt goes through the API's own client and token.
    const keycloak = api.app.get(KeycloakAdminClient);
    const person = await createPerson();
    const role = (await (await admin('GET', '/roles/atrium-admin')).json()) as { id: string; name: string };
    const group = await admin('POST', '/groups', { name: `acct-group-${randomBytes(4).toString('hex')}` });
    expect(group.status).toBe(201);
    const groupId = group.headers.get('location')!.split('/').at(-1)!;
    const attackerUsername = `acct-evil-${randomBytes(4).toString('hex')}`;
    try {
      const attempts: [string, () => Promise<unknown>][] = [
        [
          'grant atrium-admin',
          () => keycloak.call('POST', `/users/${person.id}/role-mappings/realm`, { body: [role] }),
        ],
        ['add to a group', () => keycloak.call('PUT', `/users/${person.id}/groups/${groupId}`)],
        ['impersonate', () => keycloak.call('POST', `/users/${person.id}/impersonation`)],
      ];
      const refused: Record<string, number | undefined> = {};
      for (const [what, attempt] of attempts) {
        const error = await attempt().then(
          () => undefined,
          (caught: unknown) => caught,
        );
        refused[what] = error instanceof KeycloakAdminError ? error.status : undefined;
      }
      expect(refused).toEqual({
        'grant atrium-admin': 403,
        'add to a group': 403,
        impersonate: 403,
      });
      // Creating users is part of manage; the roles named in the request are not granted with it.
      await keycloak
        .call('POST', '/users', {
          body: { username: attackerUsername, enabled: true, realmRoles: ['atrium-admin'] },
        })
        .catch(() => undefined);
      const [made] = (await (
        await admin('GET', `/users?exact=true&username=${attackerUsername}`)
      ).json()) as {
        id: string;
      }[];
      expect(made).toBeDefined();
      const madeRoles = (await (await admin('GET', `/users/${made!.id}/role-mappings/realm`)).json()) as {
        name: string;
      }[];
      expect(madeRoles.map((r) => r.name)).not.toContain('atrium-admin');

      // Nothing changed: the person has their own roles, no group, and still signs in with their own password.
      const roles = (await (await admin('GET', `/users/${person.id}/role-mappings/realm`)).json()) as {
        name: string;
      }[];
      expect(roles.map((r) => r.name)).not.toContain('atrium-admin');
      expect(await (await admin('GET', `/users/${person.id}/groups`)).json()).toEqual([]);
      await expect(signIn(issuer, person.username, person.password)).resolves.toBeDefined();
      // What the account routes need still works for the same client.
      expect(await keycloak.findUser(person.id)).toMatchObject({ id: person.id });
      expect(await keycloak.userSessions(person.id)).toHaveLength(1);
    } finally {
      // The throw-away person and group go whatever happened, so the realm keeps no extra administrator.
      await admin('DELETE', `/users/${person.id}`);
      await admin('DELETE', `/groups/${groupId}`);
      const [made] = (await (
        await admin('GET', `/users?exact=true&username=${attackerUsername}`)
      ).json()) as {
        id: string;
      }[];
      if (made) await admin('DELETE', `/users/${made.id}`);
    }
  });

  it('copies a failed sign-in and a password change into the audit log once, also after an API restart', async () => {
    const person = await createPerson();
    await expect(signIn(issuer, person.username, 'wrong-password')).rejects.toThrow();
    const reset = await admin('PUT', `/users/${person.id}/reset-password`, {
      type: 'password',
      value: `Pw-${randomBytes(9).toString('base64url')}`,
      temporary: false,
    });
    expect(reset.status).toBe(204);

    const failed = `action = 'keycloak.login_error' and target = 'user:${person.id}'`;
    await settle();
    const changed = `action = 'keycloak.admin.action_user' and target = 'user:${person.id}' and details->>'resourcePath' like '%/reset-password'`;
    await api.app.get(KeycloakEventsPoller).pollOnce();
    await api.app.get(KeycloakEventsPoller).pollOnce();
    expect(await auditCount(failed)).toBe(1);
    expect(await auditCount(changed)).toBe(1);
    expect(
      await auditCount(
        `${failed} and actor = '${person.username}' and details->>'error' = 'invalid_user_credentials'`,
      ),
    ).toBe(1);

    // A restart: a new API process on the same database resumes from the stored cursor.
    await api.close();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
    await api.waitForIssuer();
    await expect(signIn(issuer, person.username, 'wrong-again')).rejects.toThrow();
    await settle();
    await api.app.get(KeycloakEventsPoller).pollOnce();
    expect(await auditCount(failed)).toBe(2);
    expect(await auditCount(changed)).toBe(1);
  });

  it('shows the caller their own security activity only', async () => {
    const person = await createPerson();
    const other = await createPerson();
    await expect(signIn(issuer, person.username, 'wrong-password')).rejects.toThrow();
    const token = await signIn(issuer, person.username, person.password);
    await signIn(issuer, other.username, other.password);
    const response = await api.request({ url: `/api/account/activity?user=${other.id}`, token });
    expect(response.statusCode).toBe(200);
    const { items } = response.json<{ items: { type: string; error: string | null }[] }>();
    expect(items.map((item) => item.type)).toEqual(['LOGIN', 'LOGIN_ERROR']);
    expect(items[1]?.error).toBe('invalid_user_credentials');
  });

  it('deletes the account only with the typed username, then keeps an anonymised audit record', async () => {
    const person = await createPerson();
    const victim = await createPerson();
    const token = await signIn(issuer, person.username, person.password);
    expect((await api.request({ url: '/api/me', token })).statusCode).toBe(200);
    await settle();
    await api.app.get(KeycloakEventsPoller).pollOnce();
    expect(await auditCount(`target = 'user:${person.id}'`)).toBeGreaterThan(0);

    const wrong = await api.request({
      method: 'POST',
      url: '/api/account/deletion',
      token,
      body: { confirmation: person.username.toUpperCase() },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json<{ code: string }>().code).toBe('validation_failed');
    // Another person's id smuggled in: refused by the strict schema, and nobody is deleted.
    const smuggled = await api.request({
      method: 'POST',
      url: '/api/account/deletion',
      token,
      body: { confirmation: person.username, userId: victim.id },
    });
    expect(smuggled.statusCode).toBe(400);
    expect((await admin('GET', `/users/${person.id}`)).status).toBe(200);
    expect((await admin('GET', `/users/${victim.id}`)).status).toBe(200);

    const deleted = await api.request({
      method: 'POST',
      url: '/api/account/deletion',
      token,
      body: { confirmation: person.username },
    });
    expect(deleted.statusCode).toBe(204);
    expect((await admin('GET', `/users/${person.id}`)).status).toBe(404);
    expect((await admin('GET', `/users/${victim.id}`)).status).toBe(200);
    expect(
      await countRows(databaseUrl, `select count(*)::int as n from user_profile where id = '${person.id}'`),
    ).toBe(0);

    // Keycloak's events about the deletion arrive later; they too are recorded without the person's id or name.
    await settle();
    await api.app.get(KeycloakEventsPoller).pollOnce();
    const mentions = `(actor like '%${person.id}%' or target like '%${person.id}%' or actor = '${person.username}' or details::text like '%${person.id}%' or details::text like '%${person.username}%')`;
    expect(await auditCount(mentions)).toBe(0);
    expect(await auditCount(`action = 'account.deleted' and actor like 'anonymous-%'`)).toBeGreaterThan(0);
    expect(await auditCount(`action = 'keycloak.admin.delete_user' and target like 'user:anonymous-%'`)).toBe(
      1,
    );
  });
});
