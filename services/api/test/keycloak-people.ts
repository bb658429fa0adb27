import { keycloakAdminToken } from './integration-context.js';

/**
 * Temporary people in the real Keycloak realm, made through its admin REST API (as the realm's bootstrap
 * administrator, KEYCLOAK_ADMIN_USERNAME / KEYCLOAK_ADMIN_PASSWORD, default admin / admin) for tests that need
 * more people than the realm's two demo users, and removed again afterwards.
 */
/**
 * The password {@link KeycloakPeople.create} gives a person: the realm's policy wants 12 characters or more and
 * never the user name.
 */
export function passwordOf(username: string): string {
  return `pw-${username}-not-the-name`;
}

export interface KeycloakPeople {
  /** Creates an enabled, verified person with {@link passwordOf} their user name; returns their `sub`. */
  create(username: string, realmRoles?: readonly string[]): Promise<string>;
  /**
   * Creates a realm role (e.g. a beta testers' role a canary names) and puts it in the shell client's scope, as
   * an administrator must for any role the shell's tokens should carry (`atrium-shell` has no full scope).
   */
  createRole(name: string): Promise<void>;
  /** Deletes every person and role this handle created. */
  removeAll(): Promise<void>;
}

export async function keycloakPeople(issuer: string): Promise<KeycloakPeople> {
  const issuerUrl = new URL(issuer);
  const realm = issuerUrl.pathname.split('/').at(-1)!;
  const base = issuerUrl.origin;
  const adminToken = await keycloakAdminToken(base);
  const admin = async (method: string, path: string, body?: unknown): Promise<Response> => {
    const response = await fetch(`${base}/admin/realms/${realm}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      throw new Error(`Keycloak ${method} ${path} answered ${response.status}: ${await response.text()}`);
    }
    return response;
  };
  const userIds: string[] = [];
  const roles: string[] = [];
  return {
    async create(username, realmRoles = []) {
      const created = await admin('POST', '/users', {
        username,
        email: `${username}@atrium.test`,
        firstName: username,
        lastName: 'Test',
        enabled: true,
        emailVerified: true,
        credentials: [{ type: 'password', value: passwordOf(username), temporary: false }],
      });
      const id = created.headers.get('location')!.split('/').at(-1)!;
      userIds.push(id);
      if (realmRoles.length) {
        const representations = await Promise.all(
          realmRoles.map(async (role) => (await admin('GET', `/roles/${encodeURIComponent(role)}`)).json()),
        );
        await admin('POST', `/users/${id}/role-mappings/realm`, representations);
      }
      return id;
    },
    async createRole(name) {
      await admin('POST', '/roles', { name, description: 'made by an integration test' });
      roles.push(name);
      const role: unknown = await (await admin('GET', `/roles/${encodeURIComponent(name)}`)).json();
      const [shell] = (await (await admin('GET', '/clients?clientId=atrium-shell')).json()) as {
        id: string;
      }[];
      await admin('POST', `/clients/${shell!.id}/scope-mappings/realm`, [role]);
    },
    async removeAll() {
      await Promise.allSettled([
        ...userIds.map((id) => admin('DELETE', `/users/${id}`)),
        ...roles.map((role) => admin('DELETE', `/roles/${encodeURIComponent(role)}`)),
      ]);
    },
  };
}
