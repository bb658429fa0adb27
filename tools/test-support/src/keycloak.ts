// The real Keycloak from outside: its clients' tokens, and the realm's admin REST API as the master realm's
// bootstrap administrator (people, roles, credentials, sessions) for tests that arrange or look at the realm.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { keycloakAdminToken } from '@atrium/infra-lib/keycloak-admin';
import { ISSUER, KEYCLOAK_URL, TOKEN_ENDPOINT } from './addresses.ts';

export { keycloakAdminToken };

/** A client-credentials access token for a confidential client of the real Keycloak realm. */
export async function fetchClientToken(
  issuer: string,
  clientId: string,
  clientSecret: string,
): Promise<string> {
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
    token_endpoint: string;
  };
  const response = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: clientSecret,
    }),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A token of the feature teams' machine identity, `atrium-deployer` (role remote-publisher). */
export function fetchDeployerToken(issuer: string): Promise<string> {
  return fetchClientToken(
    issuer,
    'atrium-deployer',
    process.env['ATRIUM_DEPLOYER_SECRET'] ?? 'atrium-deployer-dev-secret',
  );
}

/** A token of the platform pipeline, `atrium-platform` (roles remote-publisher and atrium-admin). */
export function fetchPlatformToken(issuer: string): Promise<string> {
  return fetchClientToken(
    issuer,
    'atrium-platform',
    process.env['ATRIUM_PLATFORM_SECRET'] ?? 'atrium-platform-dev-secret',
  );
}

/** What Keycloak's token endpoint answered. */
export interface TokenAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** Redeems a refresh token at Keycloak as the shell's client, from this Node process (another machine). */
export async function redeemRefreshToken(refreshToken: string, dpopProof?: string): Promise<TokenAnswer> {
  const response = await fetch(TOKEN_ENDPOINT, {
    method: 'POST',
    headers: dpopProof === undefined ? {} : { DPoP: dpopProof },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: 'atrium-shell',
      refresh_token: refreshToken,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The claims of a JWT, unverified (for looking at what Keycloak issued). */
export function claimsOf(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
}

/** A person made in the realm for one test: enabled, e-mail verified, a password that fits the realm's policy. */
export interface TestPerson {
  /** Keycloak's user id: the `sub` of the person's tokens. */
  readonly id: string;
  readonly username: string;
  readonly email: string;
  readonly firstName: string;
  readonly lastName: string;
  readonly password: string;
}

/**
 * The password a made person gets: the realm's policy wants 12 characters or more and never the user name or
 * the e-mail address.
 */
export function passwordOf(username: string): string {
  return `pw-${username}-not-the-name`;
}

/** A realm's admin REST API as the master realm's bootstrap administrator. */
export interface RealmAdmin {
  /** Calls `/admin/realms/<realm><path>`; fails naming the answer unless it is a success. */
  call(method: string, path: string, body?: unknown): Promise<Response>;
  /** The HTTP status of `GET /admin/realms/<realm><path>`, whatever it is (e.g. 404 once a user is deleted). */
  status(path: string): Promise<number>;
  /**
   * Makes a person: `username`, else `<prefix>-<random>` (a name no earlier run has seen), with {@link passwordOf}
   * it and the given realm roles.
   */
  createPerson(options?: {
    username?: string;
    prefix?: string;
    realmRoles?: readonly string[];
  }): Promise<TestPerson>;
  /**
   * Creates a realm role (e.g. a beta testers' role a canary names) and puts it in the shell client's scope, as
   * an administrator must for any role the shell's tokens should carry (`atrium-shell` has no full scope).
   */
  createRole(name: string): Promise<void>;
  /** The types of the person's stored credentials (`password`, `otp`, `webauthn-passwordless`, …), sorted. */
  credentialTypes(person: Pick<TestPerson, 'id'>): Promise<string[]>;
  /** Ends all of the person's sessions, as an administrator does from the admin console. */
  signOutEverywhere(person: Pick<TestPerson, 'id'>): Promise<void>;
  /** How many sessions the person has. */
  sessionCount(person: Pick<TestPerson, 'id'>): Promise<number>;
  /** Deletes every person and role this handle made. */
  removeAll(): Promise<void>;
}

/** The admin API of the realm whose issuer is `issuer` (default the stack's atrium realm). */
export function realmAdmin(issuer: string = ISSUER): RealmAdmin {
  const issuerUrl = new URL(issuer);
  const realm = issuerUrl.pathname.split('/').at(-1)!;
  const base = `${issuerUrl.origin}/admin/realms/${realm}`;
  // The bootstrap administrator's tokens live 60 s (admin-cli's default): each is used for half of that.
  let token: { value: string; until: number } | undefined;
  const headers = async (body: unknown) => {
    if (token === undefined || Date.now() > token.until) {
      token = { value: await keycloakAdminToken(issuerUrl.origin), until: Date.now() + 30_000 };
    }
    return {
      authorization: `Bearer ${token.value}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
  };
  const send = async (method: string, path: string, body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: await headers(body),
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await send(method, path, body);
    if (!response.ok) {
      throw new Error(`Keycloak ${method} ${path} answered ${response.status}: ${await response.text()}`);
    }
    return response;
  };
  const userIds: string[] = [];
  const roles: string[] = [];
  return {
    call,
    status: async (path) => (await send('GET', path)).status,
    async createPerson({ username, prefix = 'person', realmRoles = [] } = {}) {
      const id = randomBytes(5).toString('hex');
      const name = username ?? `${prefix}-${id}`;
      const person = {
        username: name,
        email: `${name}@atrium.test`,
        firstName: prefix[0]!.toUpperCase() + prefix.slice(1),
        lastName: `Tester ${id}`,
        password: passwordOf(name),
      };
      const created = await call('POST', '/users', {
        username: person.username,
        email: person.email,
        firstName: person.firstName,
        lastName: person.lastName,
        enabled: true,
        emailVerified: true,
        credentials: [{ type: 'password', value: person.password, temporary: false }],
      });
      const userId = created.headers.get('location')?.split('/').at(-1);
      if (!userId) throw new Error('Keycloak created the user but named no id');
      userIds.push(userId);
      if (realmRoles.length) {
        const representations = await Promise.all(
          realmRoles.map(async (role): Promise<unknown> =>
            (await call('GET', `/roles/${encodeURIComponent(role)}`)).json(),
          ),
        );
        await call('POST', `/users/${userId}/role-mappings/realm`, representations);
      }
      return { id: userId, ...person };
    },
    async createRole(name) {
      await call('POST', '/roles', { name, description: 'made by a test' });
      roles.push(name);
      const role: unknown = await (await call('GET', `/roles/${encodeURIComponent(name)}`)).json();
      const [shell] = (await (await call('GET', '/clients?clientId=atrium-shell')).json()) as {
        id: string;
      }[];
      await call('POST', `/clients/${shell!.id}/scope-mappings/realm`, [role]);
    },
    async credentialTypes(person) {
      const credentials = (await (await call('GET', `/users/${person.id}/credentials`)).json()) as {
        type: string;
      }[];
      return credentials.map((credential) => credential.type).sort();
    },
    async signOutEverywhere(person) {
      await call('POST', `/users/${person.id}/logout`);
    },
    async sessionCount(person) {
      return ((await (await call('GET', `/users/${person.id}/sessions`)).json()) as unknown[]).length;
    },
    async removeAll() {
      await Promise.allSettled([
        ...userIds.map((id) => call('DELETE', `/users/${id}`)),
        ...roles.map((role) => call('DELETE', `/roles/${encodeURIComponent(role)}`)),
      ]);
    },
  };
}

/** The Authorization header of the master realm's bootstrap administrator, for Keycloak's admin API. */
export async function realmAdminHeaders(): Promise<{ Authorization: string }> {
  return { Authorization: `Bearer ${await keycloakAdminToken(KEYCLOAK_URL)}` };
}

/**
 * The process that serves Keycloak's port: the journeys pause it (SIGSTOP) to model a Keycloak that is down
 * or too slow to answer (connections are accepted, nothing comes back) and resume it (SIGCONT). Found by port,
 * since `npm test` starts Keycloak before the browser tier and the stack then reuses it.
 */
export function keycloakProcess(): { pause(): void; resume(): void } {
  const port = new URL(KEYCLOAK_URL).port;
  const listing = execFileSync('ss', ['-ltnpH', `sport = :${port}`], { encoding: 'utf8' });
  const pid = Number(/pid=(\d+)/.exec(listing)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) {
    throw new Error(
      `No process of this user listens on port ${port} (ss said: ${listing.trim() || 'nothing'}).`,
    );
  }
  return {
    pause: () => process.kill(pid, 'SIGSTOP'),
    resume: () => process.kill(pid, 'SIGCONT'),
  };
}
