import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { keycloakAdminToken } from '../lib/keycloak-admin.ts';
import { deploymentRealm } from './deployment-realm.ts';
import { signInWithPassword, SignInError } from '@atrium/test-support/browser';
import { createDpopKey } from '@atrium/test-support/dpop';
import { realmAdmin } from '@atrium/test-support/keycloak';
import { ATRIUM_REALM_FILE, resolveRealmPlaceholders } from './realm-file.ts';

const issuer = inject('oidcIssuerUrl');
const tokenEndpoint = `${issuer}/protocol/openid-connect/token`;

function decodeJwt(jwt: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header = '', payload = ''] = jwt.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as Record<string, unknown>,
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>,
  };
}

async function postForm(url: string, form: Record<string, string>): Promise<Response> {
  return fetch(url, { method: 'POST', body: new URLSearchParams(form) });
}

describe('the atrium realm on a real Keycloak', () => {
  it('publishes its discovery document under the issuer the platform expects', async () => {
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
      issuer: string;
    };
    expect(discovery.issuer).toBe(issuer);
  });

  it('signs alice in with code + PKCE straight back to the shell, with an RFC 9068 token for the API', async () => {
    const tokens = await signInWithPassword({ issuer, username: 'alice', password: 'alice' });
    const { header, payload } = decodeJwt(tokens.access_token);
    expect(header.typ).toBe('at+jwt');
    expect([payload.aud].flat()).toContain('atrium-api');
    expect(payload).toMatchObject({
      iss: issuer,
      azp: 'atrium-shell',
      client_id: 'atrium-shell',
      preferred_username: 'alice',
      email: 'alice@atrium.test',
      name: 'Alice Liddell',
      given_name: 'Alice',
      realm_access: { roles: ['atrium-user'] },
    });
    expect(typeof payload.sub).toBe('string');
    expect(tokens.refresh_token).toBeTruthy();
  });

  it("binds atrium-shell's tokens to the key of the DPoP proof it redeemed the code with", async () => {
    const tokens = await signInWithPassword({ issuer, username: 'alice', password: 'alice' });
    expect(tokens.token_type).toBe('DPoP');
    expect(decodeJwt(tokens.access_token).payload.cnf).toMatchObject({ jkt: tokens.dpop.jkt });
  });

  it('refuses to redeem an atrium-shell code without a DPoP proof', async () => {
    const attempt = signInWithPassword({ issuer, username: 'alice', password: 'alice', dpop: false });
    await expect(attempt).rejects.toMatchObject({ page: 'token' });
  });

  it('gives ada the Atrium roles and nothing else from the realm', async () => {
    const tokens = await signInWithPassword({ issuer, username: 'ada', password: 'ada' });
    const roles = (decodeJwt(tokens.access_token).payload.realm_access as { roles: string[] }).roles;
    expect([...roles].sort()).toEqual(['atrium-admin', 'atrium-developer', 'atrium-user']);
  });

  it('shows the login form again for a wrong password', async () => {
    const attempt = signInWithPassword({ issuer, username: 'ada', password: 'not-her-password' });
    await expect(attempt).rejects.toBeInstanceOf(SignInError);
    await expect(attempt).rejects.toMatchObject({ page: 'login' });
  });

  it('refuses the password grant and an authorization request without PKCE', async () => {
    // With a DPoP proof, so that the refusal is about the grant, not the missing proof.
    const passwordGrant = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { dpop: await (await createDpopKey()).proof('POST', tokenEndpoint) },
      body: new URLSearchParams({
        grant_type: 'password',
        client_id: 'atrium-shell',
        username: 'alice',
        password: 'alice',
      }),
    });
    expect(passwordGrant.ok).toBe(false);
    expect(((await passwordGrant.json()) as { error: string }).error).toBe('unauthorized_client');

    const authorize = new URL(`${issuer}/protocol/openid-connect/auth`);
    authorize.search = new URLSearchParams({
      client_id: 'atrium-shell',
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'http://localhost:4000/auth/callback',
    }).toString();
    const response = await fetch(authorize, { redirect: 'manual' });
    expect(response.headers.get('location')).toContain('error=invalid_request');
  });

  it('issues the deployer a client-credentials token for the API carrying remote-publisher', async () => {
    const response = await postForm(tokenEndpoint, {
      grant_type: 'client_credentials',
      client_id: 'atrium-deployer',
      client_secret: process.env.ATRIUM_DEPLOYER_SECRET ?? 'atrium-deployer-dev-secret',
    });
    expect(response.status).toBe(200);
    const { access_token: accessToken } = (await response.json()) as { access_token: string };
    const { header, payload } = decodeJwt(accessToken);
    expect(header.typ).toBe('at+jwt');
    expect([payload.aud].flat()).toContain('atrium-api');
    expect(payload).toMatchObject({
      client_id: 'atrium-deployer',
      realm_access: { roles: ['remote-publisher'] },
    });
  });

  it('issues the platform pipeline a client-credentials token carrying remote-publisher and atrium-admin', async () => {
    const response = await postForm(tokenEndpoint, {
      grant_type: 'client_credentials',
      client_id: 'atrium-platform',
      client_secret: process.env.ATRIUM_PLATFORM_SECRET ?? 'atrium-platform-dev-secret',
    });
    expect(response.status).toBe(200);
    const { access_token: accessToken } = (await response.json()) as { access_token: string };
    const { payload } = decodeJwt(accessToken);
    expect([payload.aud].flat()).toContain('atrium-api');
    // The API matches a remote's owner against azp.
    expect(payload).toMatchObject({ azp: 'atrium-platform', client_id: 'atrium-platform' });
    expect((payload.realm_access as { roles: string[] }).roles.sort()).toEqual([
      'atrium-admin',
      'remote-publisher',
    ]);
  });
});

describe('the atrium realm refuses what an attacker would try', () => {
  const keycloakUrl = new URL(issuer).origin;

  /** An administrator's token from the master realm (the bootstrap admin ensureKeycloak set up). */
  const adminToken = () => keycloakAdminToken(keycloakUrl);

  it('refuses a password grant on admin-cli with a correct password, while alice still signs in', async () => {
    // admin-cli exists in every realm and takes passwords by default: a way around the login page (and its
    // brute-force lock-out, second factors, consent) straight to a token for any user whose password leaked.
    const attack = await postForm(tokenEndpoint, {
      grant_type: 'password',
      client_id: 'admin-cli',
      username: 'alice',
      password: 'alice',
      scope: 'openid',
    });
    expect(attack.status).toBe(400);
    const body = (await attack.json()) as { error: string; access_token?: string };
    expect(body.error).toBe('unauthorized_client');
    expect(body.access_token).toBeUndefined();

    const tokens = await signInWithPassword({ issuer, username: 'alice', password: 'alice' });
    expect(decodeJwt(tokens.access_token).payload.preferred_username).toBe('alice');
  });

  it('refuses short, username-like, email-like and reused passwords, and takes a long one', async () => {
    const token = await adminToken();
    const users = `${keycloakUrl}/admin/realms/atrium/users`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const username = `policy-probe-${Date.now()}`;
    const email = `${username}@atrium.test`;
    const created = await fetch(users, {
      method: 'POST',
      headers,
      body: JSON.stringify({ username, email, enabled: true, firstName: 'Policy', lastName: 'Probe' }),
    });
    expect(created.status).toBe(201);
    const id = created.headers.get('location')!.split('/').at(-1)!;
    const setPassword = async (value: string) => {
      const response = await fetch(`${users}/${id}/reset-password`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({ type: 'password', value, temporary: false }),
      });
      return { status: response.status, body: response.status === 204 ? '' : await response.text() };
    };
    const refused = async (value: string, reason: RegExp) => {
      const attempt = await setPassword(value);
      expect(attempt.status, value).toBe(400);
      expect(attempt.body, value).toMatch(reason);
    };
    try {
      await refused('alice', /minLength|minimum length/i);
      await refused('short-pass1', /minLength|minimum length/i);
      await refused(username, /username/i);
      await refused(email, /email/i);
      const passphrase = 'correct horse battery staple';
      expect(await setPassword(passphrase)).toEqual({ status: 204, body: '' });
      await refused(passphrase, /history/i);
      expect(await setPassword(`${passphrase} again`)).toEqual({ status: 204, body: '' });
    } finally {
      await fetch(`${users}/${id}`, { method: 'DELETE', headers });
    }
  });
});

describe('second factors on the real Keycloak', () => {
  const atrium = realmAdmin(issuer);
  const admin = async (path: string): Promise<unknown> => (await atrium.call('GET', path)).json();

  it('has passkeys, authenticator apps and the required actions that set them up and remove them', async () => {
    const realm = (await admin('')) as Record<string, unknown>;
    expect(realm).toMatchObject({
      browserFlow: 'atrium browser',
      registrationFlow: 'registration',
      directGrantFlow: 'direct grant',
      resetCredentialsFlow: 'reset credentials',
      webAuthnPolicyPasswordlessPasskeysEnabled: true,
      otpPolicyType: 'totp',
      otpPolicyAlgorithm: 'HmacSHA1',
      otpPolicyDigits: 6,
      otpPolicyPeriod: 30,
      bruteForceProtected: true,
      loginWithEmailAllowed: true,
    });
    const actions = (await admin('/authentication/required-actions')) as {
      alias: string;
      enabled: boolean;
    }[];
    const enabled = actions.filter((action) => action.enabled).map((action) => action.alias);
    expect(enabled).toEqual(
      expect.arrayContaining([
        'CONFIGURE_TOTP',
        'webauthn-register-passwordless',
        // Keycloak's Delete Credential: the Security section's "Remove" (kc_action=delete_credential:<id>).
        'delete_credential',
        // Keycloak's Delete Account, off in a new realm: the Security section's deletion (kc_action=delete_account).
        'delete_account',
        'VERIFY_EMAIL',
        'UPDATE_PASSWORD',
      ]),
    );
    // The realm file lists every action Keycloak 26.7 has, so the import leaves none out.
    expect(actions.map((action) => action.alias).sort()).toEqual(
      [
        'CONFIGURE_RECOVERY_AUTHN_CODES',
        'CONFIGURE_TOTP',
        'TERMS_AND_CONDITIONS',
        'UPDATE_EMAIL',
        'UPDATE_PASSWORD',
        'UPDATE_PROFILE',
        'VERIFY_EMAIL',
        'VERIFY_PROFILE',
        'delete_account',
        'delete_credential',
        'idp_link',
        'update_user_locale',
        'webauthn-register',
        'webauthn-register-passwordless',
      ].sort(),
    );
  });

  it("imports the administrators' second factor switched off, for development", async () => {
    const executions = (await admin('/authentication/flows/atrium%20browser/executions')) as {
      displayName: string;
      requirement: string;
      level: number;
    }[];
    const adminStep = executions.find((e) => e.displayName === 'atrium admins second factor');
    expect(adminStep?.requirement).toBe(process.env.ATRIUM_ADMIN_SECOND_FACTOR ?? 'DISABLED');
    expect(executions.find((e) => e.displayName === 'atrium second factor')?.requirement).toBe('CONDITIONAL');
  });
});

describe('the realm as imported outside development (deployment-realm.ts), on the real Keycloak', () => {
  const keycloakUrl = new URL(issuer).origin;
  // A realm of its own beside the development one, created from exactly what compose and Kubernetes import.
  const name = `atrium-deployed-${randomBytes(4).toString('hex')}`;
  const deployedIssuer = `${keycloakUrl}/realms/${name}`;
  const realmAdminUrl = `${keycloakUrl}/admin/realms/${name}`;
  let headers: Record<string, string> = {};

  beforeAll(async () => {
    headers = {
      authorization: `Bearer ${await keycloakAdminToken(keycloakUrl)}`,
      'content-type': 'application/json',
    };
    // As a deployment's import resolves it: its own client secrets, nothing else set.
    const secrets = Object.fromEntries(
      ['ATRIUM_DEPLOYER_SECRET', 'ATRIUM_PLATFORM_SECRET', 'ATRIUM_ACCOUNT_ADMIN_SECRET'].map((variable) => [
        variable,
        randomBytes(16).toString('hex'),
      ]),
    );
    const deployed = deploymentRealm(readFileSync(ATRIUM_REALM_FILE, 'utf8'));
    const realm = JSON.parse(resolveRealmPlaceholders(JSON.stringify(deployed), secrets)) as {
      realm: string;
    };
    realm.realm = name;
    const created = await fetch(`${keycloakUrl}/admin/realms`, {
      method: 'POST',
      headers,
      body: JSON.stringify(realm),
    });
    expect(created.status, await created.text()).toBe(201);
  });

  afterAll(async () => {
    await fetch(realmAdminUrl, { method: 'DELETE', headers });
  });

  /** A person an administrator created, with a password that fits the policy and the given realm roles. */
  const createPerson = (prefix: string, realmRoles: string[]) =>
    realmAdmin(deployedIssuer).createPerson({ prefix, realmRoles });

  it("signs in no demo user: ada's published password opens nothing there", async () => {
    const attempt = await signInWithPassword({
      issuer: deployedIssuer,
      username: 'ada',
      password: 'ada',
    }).catch((error: unknown) => error);
    expect(attempt).toBeInstanceOf(SignInError);
    expect((attempt as SignInError).page).toBe('login');
    const users = (await (
      await fetch(`${realmAdminUrl}/users?briefRepresentation=true`, { headers })
    ).json()) as {
      username: string;
    }[];
    expect(
      users.map((user) => user.username).filter((username) => ['alice', 'ada'].includes(username)),
    ).toEqual([]);
  });

  it("stops an administrator's password alone at the authenticator-app set-up, while a person without the role signs in", async () => {
    const person = await createPerson('person', []);
    const tokens = await signInWithPassword({
      issuer: deployedIssuer,
      username: person.username,
      password: person.password,
    });
    expect(decodeJwt(tokens.access_token).payload.preferred_username).toBe(person.username);

    const administrator = await createPerson('administrator', ['atrium-admin']);
    const attempt = await signInWithPassword({
      issuer: deployedIssuer,
      username: administrator.username,
      password: administrator.password,
    }).catch((error: unknown) => error);
    // The right password, and still no code for the shell: Keycloak wants an authenticator app first.
    expect(attempt).toBeInstanceOf(SignInError);
    expect((attempt as SignInError).page).toMatch(/totp/);
  });
});
