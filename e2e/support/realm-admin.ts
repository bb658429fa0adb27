import { randomBytes } from 'node:crypto';
import { expect, type APIRequestContext } from '@playwright/test';
import { keycloakAdminToken } from '../../infra/lib/keycloak-admin.ts';
import { KEYCLOAK } from './keycloak-admin.ts';

/** A person created directly in the realm (verified e-mail, a password of their own). */
export interface RealmPerson {
  readonly id: string;
  readonly username: string;
  readonly password: string;
}

/** The Authorization header of the master realm's bootstrap administrator, for Keycloak's admin API. */
export async function realmAdminHeaders(): Promise<{ Authorization: string }> {
  return { Authorization: `Bearer ${await keycloakAdminToken(KEYCLOAK)}` };
}

/** Keycloak's admin API as the master realm's bootstrap administrator: the tests' view of the realm. */
export async function realmAdmin(request: APIRequestContext) {
  const headers = await realmAdminHeaders();
  const base = `${KEYCLOAK}/admin/realms/atrium`;
  return {
    async createPerson(): Promise<RealmPerson> {
      const username = `lin-${randomBytes(5).toString('hex')}`;
      const password = `Lovelace${randomBytes(9).toString('hex')}1815`;
      const created = await request.post(`${base}/users`, {
        headers,
        data: {
          username,
          email: `${username}@atrium.test`,
          firstName: 'Lin',
          lastName: username,
          enabled: true,
          emailVerified: true,
          credentials: [{ type: 'password', value: password, temporary: false }],
        },
      });
      expect(created.status()).toBe(201);
      return { id: created.headers()['location']!.split('/').at(-1)!, username, password };
    },
    /** HTTP status of looking the user up: 200 while they exist, 404 once deleted. */
    async userStatus(id: string): Promise<number> {
      return (await request.get(`${base}/users/${id}`, { headers })).status();
    },
    async sessionCount(id: string): Promise<number> {
      const response = await request.get(`${base}/users/${id}/sessions`, { headers });
      return ((await response.json()) as unknown[]).length;
    },
  };
}
