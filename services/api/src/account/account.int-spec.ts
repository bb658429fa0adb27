import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import type { BoundToken } from '@atrium/test-support/dpop';
import { countRows } from '@atrium/test-support/postgres';
import { fetchClientToken, fetchDeployerToken } from '@atrium/test-support/keycloak';
import { keycloakAdminToken } from '@atrium/infra-lib/keycloak-admin';
import {
  openAccountAction,
  openAuthorization,
  runAccountAction,
  signIn,
  signInBrowser,
} from '@atrium/test-support/browser';
import { KeycloakAdminClient, KeycloakAdminError } from './keycloak-admin.client.js';
import { KeycloakEventsPoller, SETTLE_MS } from './keycloak-events.poller.js';

/** Lets Keycloak's latest events settle, so that the next poll copies them. */
const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 500));

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');
const keycloakBase = issuer.replace(/\/realms\/[^/]+$/, '');
const adminApi = `${keycloakBase}/admin/realms/atrium`;
/** The shell's page Keycloak sends the answer to the API's authorization request to (the realm registers it). */
const ACCESS_PAGE = 'http://localhost:4000/auth/account-access';

/**
 * The master realm's bootstrap administrator: only the test itself uses it, to arrange and to look. Its tokens
 * live a minute, so each call takes one at most 30 s old.
 */
function masterAdmin(): (method: string, path: string, body?: unknown) => Promise<Response> {
  let token: { value: string; takenAt: number } | undefined;
  const fresh = async () => {
    if (token && Date.now() - token.takenAt < 30_000) return token.value;
    const value = await keycloakAdminToken(keycloakBase);
    token = { value, takenAt: Date.now() };
    return value;
  };
  return async (method, path, body) =>
    fetch(`${adminApi}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await fresh()}`,
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
  let admin: ReturnType<typeof masterAdmin>;

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
  /** The API's authorization request for the caller's account token, as the shell asks for it. */
  const accessRequest = async (token: BoundToken) => {
    const response = await api.request({
      method: 'POST',
      url: '/api/account/access-request',
      token,
      body: { redirectUri: ACCESS_PAGE },
    });
    expect(response.statusCode).toBe(200);
    return response.json<{ authorizationUrl: string }>().authorizationUrl;
  };
  /**
   * What the Security section's "Continue" does in the person's browser: the API's authorization request,
   * answered by Keycloak from the person's session (no page), handed back to the API.
   */
  const grantAccess = async (person: { token: BoundToken; cookies: Map<string, string> }) => {
    const answered = await openAuthorization({
      authorizationUrl: await accessRequest(person.token),
      redirectUri: ACCESS_PAGE,
      cookies: person.cookies,
    });
    expect(answered.page, 'Keycloak showed a page instead of answering').toBeUndefined();
    const response = await api.request({
      method: 'POST',
      url: '/api/account/access',
      token: person.token,
      body: {
        code: answered.callback!.searchParams.get('code'),
        state: answered.callback!.searchParams.get('state'),
      },
    });
    expect(response.statusCode, response.body).toBe(204);
  };
  const auditCount = (where: string) =>
    countRows(databaseUrl, `select count(*)::int as n from audit_event where ${where}`);

  beforeAll(async () => {
    admin = masterAdmin();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl });
    await api.waitForIssuer();
  });

  afterAll(async () => {
    await api?.close();
  });

  it("lists the caller's sessions and signs out only the others, whatever id an attacker adds", async () => {
    const person = await createPerson();
    const here = await signInBrowser(issuer, person.username, person.password);
    const elsewhere = await signIn(issuer, person.username, person.password);
    const attacker = await createPerson();
    const attackerHere = await signInBrowser(issuer, attacker.username, attacker.password);
    await grantAccess(here);
    await grantAccess(attackerHere);

    const list = await api.request({ url: '/api/account/sessions', token: here.token });
    expect(list.statusCode).toBe(200);
    const { sessions } = list.json<{
      sessions: { id: string; current: boolean; applications: string[] }[];
    }>();
    expect(sessions.map((s) => s.id).sort()).toEqual([sidOf(here.token), sidOf(elsewhere)].sort());
    expect(sessions.find((s) => s.current)?.id).toBe(sidOf(here.token));
    // The API's own client signed in to the session to act for the person: not one of their applications.
    for (const session of sessions) expect(session.applications).toEqual(['atrium-shell']);

    // The attacker names the person's user and session everywhere a server might look: no effect on them.
    const attack = await api.request({
      method: 'POST',
      url: `/api/account/sessions/sign-out-others?userId=${person.id}&sessionId=${sidOf(here.token)}`,
      token: attackerHere.token,
      body: { userId: person.id, sub: person.id, sessionId: sidOf(elsewhere) },
    });
    expect(attack.statusCode).toBe(200);
    expect(attack.json()).toEqual({ signedOut: 0 });
    expect((await sessionIdsOf(person)).sort()).toEqual([sidOf(here.token), sidOf(elsewhere)].sort());

    const signOut = await api.request({
      method: 'POST',
      url: '/api/account/sessions/sign-out-others',
      token: here.token,
    });
    expect(signOut.json()).toEqual({ signedOut: 1 });
    expect(await sessionIdsOf(person)).toEqual([sidOf(here.token)]);
    // The person keeps working in this session.
    expect((await api.request({ url: '/api/account/sessions', token: here.token })).statusCode).toBe(200);
  });

  it("holds the person's account token only for the person's own session: no other answer is taken for it", async () => {
    const victim = await createPerson();
    const attacker = await createPerson();
    const victimHere = await signInBrowser(issuer, victim.username, victim.password);
    const attackerHere = await signInBrowser(issuer, attacker.username, attacker.password);
    const denied = async (token: BoundToken) =>
      (await api.request({ url: '/api/account/sessions', token })).json<{ code: string }>().code;

    // Before the person's own sign-in there, nothing: the API has no right of its own to fall back on.
    expect(await denied(victimHere.token)).toBe('account_access_required');

    // The attacker has their own authorization request sent through the victim's browser (a link): Keycloak
    // answers with a code of the victim's session, which the attacker brings to the API with their own state.
    const lure = await accessRequest(attackerHere.token);
    const caught = await openAuthorization({
      authorizationUrl: lure,
      redirectUri: ACCESS_PAGE,
      cookies: victimHere.cookies,
    });
    const stolen = await api.request({
      method: 'POST',
      url: '/api/account/access',
      token: attackerHere.token,
      body: {
        code: caught.callback!.searchParams.get('code'),
        state: caught.callback!.searchParams.get('state'),
      },
    });
    expect(stolen.statusCode).toBe(403);
    expect(stolen.json<{ code: string }>().code).toBe('account_access_required');
    expect(await denied(attackerHere.token)).toBe('account_access_required');
    const kept = `select count(*)::int as n from account_access where session_id in ('${sidOf(attackerHere.token)}', '${sidOf(victimHere.token)}')`;
    expect(await countRows(databaseUrl, kept)).toBe(0);

    // The victim's own answer, brought by the victim: taken once. Brought again (a copy replayed), it is refused,
    // and Keycloak withdraws what it gave for it: the person gives access anew, their session unharmed.
    const own = await openAuthorization({
      authorizationUrl: await accessRequest(victimHere.token),
      redirectUri: ACCESS_PAGE,
      cookies: victimHere.cookies,
    });
    const answer = {
      code: own.callback!.searchParams.get('code'),
      state: own.callback!.searchParams.get('state'),
    };
    const granted = await api.request({
      method: 'POST',
      url: '/api/account/access',
      token: victimHere.token,
      body: answer,
    });
    expect(granted.statusCode).toBe(204);
    expect((await api.request({ url: '/api/account/sessions', token: victimHere.token })).statusCode).toBe(
      200,
    );
    const again = await api.request({
      method: 'POST',
      url: '/api/account/access',
      token: victimHere.token,
      body: answer,
    });
    expect(again.json<{ code: string }>().code).toBe('account_access_required');
    expect(await denied(victimHere.token)).toBe('account_access_required');
    await grantAccess(victimHere);
    expect((await api.request({ url: '/api/account/sessions', token: victimHere.token })).statusCode).toBe(
      200,
    );
    // The same person in another session of theirs is not served by it either.
    const victimElsewhere = await signIn(issuer, victim.username, victim.password);
    expect(await denied(victimElsewhere)).toBe('account_access_required');
  });

  it('refuses a token of another client (azp): a machine cannot act on its own service account', async () => {
    const deployer = await fetchDeployerToken(issuer);
    for (const [method, url, body] of [
      ['GET', '/api/account/sessions', undefined],
      ['GET', '/api/account/credentials', undefined],
      ['GET', '/api/account/activity', undefined],
      ['POST', '/api/account/sessions/sign-out-others', undefined],
      ['POST', '/api/account/access-request', { redirectUri: ACCESS_PAGE }],
      ['POST', '/api/account/access', { code: 'c', state: 's' }],
    ] as const) {
      const response = await api.request({ method, url, token: deployer, ...(body ? { body } : {}) });
      expect(response.statusCode, url).toBe(403);
      expect(response.json<{ code: string }>().code).toBe('personal_session_required');
    }
    const sub = decodeJwt(deployer).sub!;
    expect((await admin('GET', `/users/${sub}`)).status).toBe(200);
  });

  it("gives the API's own Keycloak client no right over anyone: not a password, a user, a session, a role, the realm", async () => {
    // The attacker holds the API's Keycloak secret and uses it directly against Keycloak's admin API, and
    // through the API's own client (its cached token), for every change that took over an account before.
    const secret = process.env['ATRIUM_ACCOUNT_ADMIN_SECRET'] ?? 'atrium-account-admin-dev-secret';
    const stolen = await fetchClientToken(issuer, 'atrium-account-admin', secret);
    const direct = (method: string, path: string, body?: unknown) =>
      fetch(`${adminApi}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${stolen}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const keycloak = api.app.get(KeycloakAdminClient);
    const person = await createPerson({ appLabel: 'Phone' });
    const app = await appOf(person);
    const token = await signIn(issuer, person.username, person.password, person.totpSecret);
    const json = async <T>(path: string) => (await (await admin('GET', path)).json()) as T;
    const [management] = await json<{ id: string }[]>('/clients?clientId=realm-management');
    const [self] = await json<{ id: string }[]>('/clients?clientId=atrium-account-admin');
    const realmAdmin = await json<{ id: string; name: string }>(
      `/clients/${management!.id}/roles/realm-admin`,
    );
    const serviceUser = await json<{ id: string }>(`/clients/${self!.id}/service-account-user`);
    const role = await json<{ id: string; name: string }>('/roles/atrium-admin');
    const newPassword = `Pw-${randomBytes(9).toString('base64url')}`;
    const attempts: [string, string, string, unknown?][] = [
      [
        "set the person's password",
        'PUT',
        `/users/${person.id}/reset-password`,
        { type: 'password', value: newPassword, temporary: false },
      ],
      ["remove the person's authenticator app", 'DELETE', `/users/${person.id}/credentials/${app.id}`],
      ['change their e-mail', 'PUT', `/users/${person.id}`, { email: 'attacker@evil.test' }],
      ['send them an action mail', 'PUT', `/users/${person.id}/execute-actions-email`, ['UPDATE_PASSWORD']],
      ['read them', 'GET', `/users/${person.id}`],
      ['read their sessions', 'GET', `/users/${person.id}/sessions`],
      ['end their session', 'DELETE', `/sessions/${sidOf(token)}`],
      ['delete them', 'DELETE', `/users/${person.id}`],
      ['grant atrium-admin', 'POST', `/users/${person.id}/role-mappings/realm`, [role]],
      ['impersonate them', 'POST', `/users/${person.id}/impersonation`],
      [
        'create a user',
        'POST',
        '/users',
        { username: `acct-evil-${randomBytes(4).toString('hex')}`, enabled: true },
      ],
      ['read the clients and their secrets', 'GET', '/clients'],
      ['change the realm', 'PUT', '', { bruteForceProtected: false }],
      ['create a client', 'POST', '/clients', { clientId: 'evil' }],
      [
        'make itself a realm administrator',
        'POST',
        `/users/${serviceUser.id}/role-mappings/clients/${management!.id}`,
        [realmAdmin],
      ],
    ];
    const refused: Record<string, number> = {};
    for (const [what, method, path, body] of attempts) {
      refused[what] = (await direct(method, path, body)).status;
      // The same through the API's own client, as code running inside the API would.
      const error = await keycloak
        .call(method as 'GET' | 'POST' | 'PUT' | 'DELETE', path, body === undefined ? {} : { body })
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error, what).toBeInstanceOf(KeycloakAdminError);
      expect((error as KeycloakAdminError).status, what).toBe(403);
    }
    expect(refused).toEqual(Object.fromEntries(attempts.map(([what]) => [what, 403])));

    // Nothing changed: the person signs in with their own password and app, the new password is refused, their
    // session, e-mail, roles and app are theirs; the client still holds view-events only.
    await expect(signIn(issuer, person.username, newPassword, person.totpSecret)).rejects.toThrow();
    await expect(signIn(issuer, person.username, person.password, person.totpSecret)).resolves.toBeDefined();
    expect(await sessionIdsOf(person)).toContain(sidOf(token));
    expect((await json<{ email: string }>(`/users/${person.id}`)).email).toBe(
      `${person.username}@atrium.test`,
    );
    expect((await credentialsOf(person)).map((credential) => credential.id)).toContain(app.id);
    const roles = await json<{ name: string }[]>(`/users/${person.id}/role-mappings/realm`);
    expect(roles.map((r) => r.name)).not.toContain('atrium-admin');
    expect((await json<{ bruteForceProtected: boolean }>('')).bruteForceProtected).toBe(true);
    expect(await json('/clients?clientId=evil')).toEqual([]);
    const granted = await json<{ name: string }[]>(
      `/users/${serviceUser.id}/role-mappings/clients/${management!.id}`,
    );
    expect(granted.map((r) => r.name)).toEqual(['view-events']);
    // What the API still does with it works: reading the person's events.
    expect((await keycloak.events({ user: person.id, max: 5 })).length).toBeGreaterThan(0);
  });

  it("lists the caller's own sign-in methods without secrets, whatever user an attacker names", async () => {
    const person = await createPerson({ appLabel: 'Work phone' });
    const other = await createPerson({ appLabel: 'Other phone' });
    const before = Date.now();
    const here = await signInBrowser(issuer, person.username, person.password, person.totpSecret);
    await grantAccess(here);
    const token = here.token;

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
    const here = await signInBrowser(issuer, victim.username, victim.password);
    await grantAccess(here);
    const list = await api.request({ url: '/api/account/credentials', token: here.token });
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
    const { cookies: browser } = await signInBrowser(
      issuer,
      victim.username,
      victim.password,
      victim.totpSecret,
    );
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

  it("answers 503 problem+json when Keycloak's events cannot be read", async () => {
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
      const response = await cut.request({ url: '/api/account/activity', token });
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
    const here = await signInBrowser(issuer, person.username, person.password);
    // Letting the API act for them signs the API's client in to their session: no sign-in of theirs.
    await grantAccess(here);
    const token = here.token;
    await signIn(issuer, other.username, other.password);
    const response = await api.request({ url: `/api/account/activity?user=${other.id}`, token });
    expect(response.statusCode).toBe(200);
    const { items } = response.json<{ items: { type: string; error: string | null }[] }>();
    expect(items.map((item) => item.type)).toEqual(['LOGIN', 'LOGIN_ERROR']);
    expect(items[1]?.error).toBe('invalid_user_credentials');
  });

  it("deletes no account without the person signing in again at Keycloak: not from the signed-in page's script", async () => {
    const person = await createPerson();
    const here = await signInBrowser(issuer, person.username, person.password);
    // A moment later: Keycloak counts authentication in whole seconds, and any sign-in before this second is old.
    await new Promise((resolve) => setTimeout(resolve, 1100));

    // Script in the signed-in page (a remote's code) starts Keycloak's Delete Account in the person's browser.
    // Silently: Keycloak wants the person to sign in again first, which takes a page, and sends the browser back.
    const silent = await openAccountAction({
      issuer,
      kcAction: 'delete_account',
      prompt: 'none',
      cookies: here.cookies,
    });
    expect(silent).toMatchObject({ page: null, error: 'login_required' });
    // Openly: however live the session, Keycloak asks for the password again before it shows the deletion, on a
    // page no other site may frame; the script knows no password, and nothing is deleted.
    const open = await openAccountAction({ issuer, kcAction: 'delete_account', cookies: here.cookies });
    expect(open).toEqual({
      page: 'login',
      error: null,
      status: null,
      framing: { frameAncestors: "'self'", xFrameOptions: 'SAMEORIGIN' },
    });
    // The API offers no way to delete anyone: no route, and no right at Keycloak for one (see above).
    const viaApi = await api.request({
      method: 'POST',
      url: '/api/account/deletion',
      token: here.token,
      body: {},
    });
    expect(viaApi.statusCode).toBe(404);
    expect((await admin('GET', `/users/${person.id}`)).status).toBe(200);
    // The person keeps working, and cancelling at Keycloak's confirmation keeps the account too.
    expect((await api.request({ url: '/api/me', token: here.token })).statusCode).toBe(200);
    const cancelled = await runAccountAction({
      issuer,
      username: person.username,
      password: person.password,
      kcAction: 'delete_account',
      answer: 'cancel',
    });
    expect(cancelled).toEqual({ status: 'cancelled', pages: ['login', 'deleteaccount'] });
    expect((await admin('GET', `/users/${person.id}`)).status).toBe(200);
  });

  it("deletes the account after a fresh sign-in; the person's still-valid token then brings none of it back", async () => {
    const person = await createPerson();
    const victim = await createPerson();
    const here = await signInBrowser(issuer, person.username, person.password);
    const token = here.token;
    expect((await api.request({ url: '/api/me', token })).statusCode).toBe(200);
    const saved = await api.request({
      method: 'PUT',
      url: '/api/me/preferences',
      token,
      body: { theme: 'dark' },
    });
    expect(saved.statusCode).toBe(200);
    await grantAccess(here);
    await settle();
    await api.app.get(KeycloakEventsPoller).pollOnce();
    expect(await auditCount(`target = 'user:${person.id}'`)).toBeGreaterThan(0);
    const profileRows = (id: string) =>
      countRows(databaseUrl, `select count(*)::int as n from user_profile where id = '${id}'`);

    // The person's own Delete Account at Keycloak, from the shell: their password again, then the confirmation.
    const deleted = await runAccountAction({
      issuer,
      username: person.username,
      password: person.password,
      kcAction: 'delete_account',
      answer: 'confirm',
      cookies: here.cookies,
    });
    expect(deleted).toEqual({ status: null, pages: ['login', 'deleteaccount', 'info'] });
    expect((await admin('GET', `/users/${person.id}`)).status).toBe(404);
    expect((await admin('GET', `/users/${victim.id}`)).status).toBe(200);

    // Keycloak reports it; the API erases what it keeps about them in the same copy.
    await settle();
    await api.app.get(KeycloakEventsPoller).pollOnce();
    expect(await profileRows(person.id)).toBe(0);
    expect(
      await countRows(
        databaseUrl,
        `select count(*)::int as n from account_access where session_id = '${sidOf(token)}'`,
      ),
    ).toBe(0);

    // The access token is still valid for minutes. Its holder reads and writes: refused, and nothing comes back.
    for (const request of [
      { url: '/api/me' },
      { method: 'PUT' as const, url: '/api/me/preferences', body: { theme: 'light' } },
      { url: '/api/me' },
    ]) {
      const refused = await api.request({ ...request, token });
      expect(refused.statusCode, request.url).toBe(401);
      expect(refused.headers['content-type']).toContain('application/problem+json');
      expect(refused.json<{ code: string }>().code).toBe('account_deleted');
      expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    }
    expect(await profileRows(person.id)).toBe(0);
    expect((await api.request({ url: '/api/account/sessions', token })).json<{ code: string }>().code).toBe(
      'account_access_required',
    );
    // Everyone else keeps working.
    expect(
      (await api.request({ url: '/api/me', token: await signIn(issuer, victim.username, victim.password) }))
        .statusCode,
    ).toBe(200);

    // The audit log keeps the deletion without the person's id or name, Keycloak's own event about it included.
    const mentions = `(actor like '%${person.id}%' or target like '%${person.id}%' or actor = '${person.username}' or details::text like '%${person.id}%' or details::text like '%${person.username}%')`;
    expect(await auditCount(mentions)).toBe(0);
    expect(await auditCount(`action = 'account.deleted' and actor like 'anonymous-%'`)).toBeGreaterThan(0);
    expect(await auditCount(`action = 'keycloak.delete_account' and target like 'user:anonymous-%'`)).toBe(1);
  });
});
