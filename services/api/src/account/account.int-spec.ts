import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import type { BoundToken } from '../../test/dpop-key.js';
import {
  countRows,
  fetchDeployerToken,
  openAccountAction,
  runAccountAction,
  signedInBrowser,
  signIn,
} from '../../test/integration-context.js';
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
  /** The secret of their authenticator app as Keycloak keeps it, when they have one. */
  readonly totpSecret?: string;
}

/** A credential as Keycloak's admin API lists it (what the test compares the API's answer with). */
interface StoredCredential {
  readonly id: string;
  readonly type: string;
  readonly userLabel?: string;
  readonly createdDate?: number;
}

/** The realm's authenticator-app settings (SHA-1, 6 digits, 30 s), as Keycloak stores them with the credential. */
const APP_CREDENTIAL_DATA = JSON.stringify({
  subType: 'totp',
  digits: 6,
  counter: 0,
  period: 30,
  algorithm: 'HmacSHA1',
});

describe('/api/account against the real Keycloak, on PostgreSQL', () => {
  let api: TestApp;
  let admin: Awaited<ReturnType<typeof masterAdmin>>;

  /** A person with a password and, given `appLabel`, an authenticator app of that name. */
  async function createPerson(options: { appLabel?: string } = {}): Promise<Person> {
    const username = `acct-${randomBytes(4).toString('hex')}`;
    const password = `Pw-${randomBytes(9).toString('base64url')}`;
    const totpSecret = options.appLabel === undefined ? undefined : randomBytes(15).toString('base64url');
    const app =
      totpSecret === undefined
        ? []
        : [
            {
              type: 'otp',
              userLabel: options.appLabel,
              secretData: JSON.stringify({ value: totpSecret }),
              credentialData: APP_CREDENTIAL_DATA,
            },
          ];
    const created = await admin('POST', '/users', {
      username,
      email: `${username}@atrium.test`,
      firstName: 'Test',
      lastName: 'Person',
      enabled: true,
      emailVerified: true,
      credentials: [{ type: 'password', value: password, temporary: false }, ...app],
    });
    expect(created.status).toBe(201);
    const id = created.headers.get('location')!.split('/').at(-1)!;
    return { username, password, id, ...(totpSecret === undefined ? {} : { totpSecret }) };
  }

  const credentialsOf = async (person: Person) =>
    (await (await admin('GET', `/users/${person.id}/credentials`)).json()) as StoredCredential[];
  const appOf = async (person: Person) => {
    const app = (await credentialsOf(person)).find((credential) => credential.type === 'otp');
    expect(app, `${person.username}'s authenticator app`).toBeDefined();
    return app!;
  };
  /** The person's own action, as the Security section starts it, signing in with password and app code. */
  const removeAs = (person: Person, credentialId: string, answer: 'confirm' | 'cancel') =>
    runAccountAction({
      issuer,
      username: person.username,
      password: person.password,
      ...(person.totpSecret === undefined ? {} : { totpSecret: person.totpSecret }),
      kcAction: `delete_credential:${credentialId}`,
      answer,
    });

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
      ['GET', '/api/account/credentials'],
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

  it("lists the caller's own sign-in methods without secrets, whatever user an attacker names", async () => {
    const person = await createPerson({ appLabel: 'Work phone' });
    const other = await createPerson({ appLabel: 'Other phone' });
    const before = Date.now();
    const token = await signIn(issuer, person.username, person.password, person.totpSecret);

    const response = await api.request({
      url: `/api/account/credentials?userId=${other.id}&user=${other.id}&sub=${other.id}`,
      token,
    });
    expect(response.statusCode).toBe(200);
    const { credentials } = response.json<{
      credentials: { id: string; type: string; label: string | null; createdAt: string | null }[];
    }>();
    const stored = await credentialsOf(person);
    expect(credentials).toEqual(
      stored.map((credential) => ({
        id: credential.id,
        type: credential.type,
        label: credential.userLabel ?? null,
        createdAt: new Date(credential.createdDate!).toISOString(),
      })),
    );
    expect(credentials.map((credential) => [credential.type, credential.label])).toEqual([
      ['password', null],
      ['otp', 'Work phone'],
    ]);
    // Added moments ago (createPerson), as Keycloak recorded it.
    for (const credential of credentials)
      expect(Date.parse(credential.createdAt!)).toBeGreaterThan(before - 60_000);
    const otherIds = (await credentialsOf(other)).map((credential) => credential.id);
    expect(credentials.filter((credential) => otherIds.includes(credential.id))).toEqual([]);
    // Only the four members: neither the app's secret nor any of Keycloak's credential data goes out.
    expect(response.body).not.toContain(person.totpSecret!);
    expect(response.body).not.toMatch(/secretData|credentialData|HmacSHA1|value/);
  });

  it("removes a second factor only through the person's own confirmation at Keycloak, never another person's", async () => {
    const victim = await createPerson({ appLabel: 'Victim phone' });
    const attacker = await createPerson({ appLabel: 'Attacker phone' });
    const victimApp = await appOf(victim);
    const attackerApp = await appOf(attacker);

    // The attacker puts the victim's credential id in their own kc_action and confirms whatever is asked:
    // Keycloak looks for it among the attacker's credentials, finds none, shows nothing and reports an error.
    const attack = await removeAs(attacker, victimApp.id, 'confirm');
    expect(attack).toEqual({ status: 'error', pages: ['login', 'otp-login'] });
    expect((await credentialsOf(victim)).map((credential) => credential.id)).toContain(victimApp.id);
    expect((await credentialsOf(attacker)).map((credential) => credential.id)).toContain(attackerApp.id);
    await expect(signIn(issuer, victim.username, victim.password, victim.totpSecret)).resolves.toBeDefined();

    // The victim is asked, and cancelling keeps the app.
    const cancelled = await removeAs(victim, victimApp.id, 'cancel');
    expect(cancelled).toEqual({ status: 'cancelled', pages: ['login', 'otp-login', 'delete-credential'] });
    expect((await credentialsOf(victim)).map((credential) => credential.id)).toContain(victimApp.id);

    // Confirmed, it is gone: the victim signs in with the password alone, and the API lists only that.
    const removed = await removeAs(victim, victimApp.id, 'confirm');
    expect(removed).toEqual({ status: 'success', pages: ['login', 'otp-login', 'delete-credential'] });
    expect((await credentialsOf(victim)).map((credential) => credential.type)).toEqual(['password']);
    const token = await signIn(issuer, victim.username, victim.password);
    const list = await api.request({ url: '/api/account/credentials', token });
    expect(list.json<{ credentials: { type: string }[] }>().credentials.map((c) => c.type)).toEqual([
      'password',
    ]);
    // The attacker's own app was never touched.
    expect((await credentialsOf(attacker)).map((credential) => credential.id)).toContain(attackerApp.id);
  });

  it("removes no second factor when another site sends the signed-in person's browser to Keycloak", async () => {
    const victim = await createPerson({ appLabel: 'Victim phone' });
    const victimApp = await appOf(victim);
    const idsOfVictim = async () => (await credentialsOf(victim)).map((credential) => credential.id);
    // The victim signed in a moment ago: their browser holds Keycloak's session cookies, which a top-level
    // navigation started by any site carries along. The attacker knows the id of the victim's app.
    const browser = await signedInBrowser(issuer, victim.username, victim.password, victim.totpSecret);
    const kcAction = `delete_credential:${victimApp.id}`;

    // Silently (prompt=none): the removal needs the confirmation page, so Keycloak sends the browser back. The
    // session was recognised: a browser without it is sent back with login_required instead.
    const silent = await openAccountAction({ issuer, kcAction, prompt: 'none', cookies: browser });
    expect(silent).toEqual({ page: null, error: 'interaction_required', status: null, framing: null });
    const signedOut = await openAccountAction({ issuer, kcAction, prompt: 'none', cookies: new Map() });
    expect(signedOut).toEqual({ page: null, error: 'login_required', status: null, framing: null });
    expect(await idsOfVictim()).toContain(victimApp.id);

    // Openly: the live session spares the password and the code, but Keycloak stops at its confirmation, and
    // as long as the person does not press it the app stays. No other site (the shell's origin included) may
    // show that page in a frame of its own, where a decoy could have the person press it unawares.
    const shown = await openAccountAction({ issuer, kcAction, cookies: browser });
    expect(shown).toEqual({
      page: 'delete-credential',
      error: null,
      status: null,
      framing: { frameAncestors: "'self'", xFrameOptions: 'SAMEORIGIN' },
    });
    expect(await idsOfVictim()).toContain(victimApp.id);
  });

  it('answers 503 problem+json when Keycloak cannot be reached, like the other account routes', async () => {
    const person = await createPerson();
    const token = await signIn(issuer, person.username, person.password);
    await api.close();
    // Keycloak's admin API on a port where nothing listens: the token endpoint works, the admin call cannot.
    const cut = await createTestApp({
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      KEYCLOAK_ADMIN_URL: 'http://127.0.0.1:9/admin/realms/atrium',
    });
    try {
      await cut.waitForIssuer();
      const response = await cut.request({ url: '/api/account/credentials', token });
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toContain('application/problem+json');
      expect(response.json<{ code: string }>().code).toBe('identity_admin_unavailable');
    } finally {
      await cut.close();
      api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
      await api.waitForIssuer();
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
