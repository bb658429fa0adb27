// The master realm's bootstrap administrator, as the dev and test stack sets it up (infra/keycloak/keycloak.ts)
// and as the tests use it to arrange and look at the realm through Keycloak's admin REST API.

/** KEYCLOAK_ADMIN_USERNAME / _PASSWORD (the names .env.example and docker compose use), `admin`/`admin` unset. */
export function keycloakAdminCredentials(env: NodeJS.ProcessEnv = process.env): {
  username: string;
  password: string;
} {
  return {
    username: env.KEYCLOAK_ADMIN_USERNAME ?? 'admin',
    password: env.KEYCLOAK_ADMIN_PASSWORD ?? 'admin',
  };
}

/** An access token of the bootstrap administrator from the Keycloak at `keycloakUrl` (its origin). */
export async function keycloakAdminToken(keycloakUrl: string): Promise<string> {
  const { username, password } = keycloakAdminCredentials();
  const response = await fetch(`${keycloakUrl}/realms/master/protocol/openid-connect/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username, password }),
  });
  if (!response.ok) throw new Error(`Keycloak admin sign-in at ${keycloakUrl} answered ${response.status}`);
  return ((await response.json()) as { access_token: string }).access_token;
}
