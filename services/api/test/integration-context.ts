import type { webcrypto } from 'node:crypto';
import type { JWK } from 'jose';
import pg from 'pg';
import { type BoundToken, dpopKeyFrom } from './dpop-key.js';

// Mirrors the keys infra/testing/integration-setup.ts provides (that file belongs to the infra project).
declare module 'vitest' {
  export interface ProvidedContext {
    oidcIssuerUrl: string;
    databaseUrl: string;
    postgresAdminUrl: string;
  }
}

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

/** Runs statements on the PostgreSQL server as admin (create/drop databases). */
export async function adminQuery(adminUrl: string, ...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Runs one `SELECT ... AS n` and returns n (e.g. counting rows a test wrote). */
export async function countRows(url: string, statement: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query<{ n: number }>(statement);
    return result.rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
}

/** The URL of another database on the same server as `adminUrl`. */
export function databaseUrlFor(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The infra helper that walks Keycloak's pages, imported by path (infra is not a package; see signIn). */
interface KeycloakWalker {
  signInWithPassword: (options: {
    issuer: string;
    username: string;
    password: string;
    totpSecret?: string;
    cookies?: Map<string, string>;
  }) => Promise<{ access_token: string; dpop: { privateKey: webcrypto.CryptoKey; publicJwk: JWK } }>;
  runAccountAction: (options: {
    issuer: string;
    username: string;
    password: string;
    totpSecret?: string;
    kcAction: string;
    answer: 'confirm' | 'cancel';
    cookies?: Map<string, string>;
  }) => Promise<{ status: string | null; pages: readonly string[] }>;
  openAuthorization: (options: {
    authorizationUrl: string;
    redirectUri: string;
    cookies: Map<string, string>;
  }) => Promise<{ callback: URL; page?: undefined } | { page: string; callback?: undefined }>;
  openAccountAction: (options: {
    issuer: string;
    kcAction: string;
    prompt?: 'none';
    cookies: Map<string, string>;
  }) => Promise<{
    page: string | null;
    error: string | null;
    status: string | null;
    framing: { frameAncestors: string | null; xFrameOptions: string | null } | null;
  }>;
}

const keycloakWalker = async (): Promise<KeycloakWalker> => {
  const helper = new URL('../../../infra/testing/password-sign-in.ts', import.meta.url).href;
  return (await import(/* @vite-ignore */ helper)) as KeycloakWalker;
};

/**
 * An access token of the master realm's bootstrap administrator (KEYCLOAK_ADMIN_USERNAME / _PASSWORD, default
 * admin / admin) from the Keycloak at `keycloakUrl`, by the stack's helper (infra/lib/keycloak-admin.ts), loaded
 * at run time like the walker above.
 */
export async function keycloakAdminToken(keycloakUrl: string): Promise<string> {
  const helper = new URL('../../../infra/lib/keycloak-admin.ts', import.meta.url).href;
  const { keycloakAdminToken: token } = (await import(/* @vite-ignore */ helper)) as {
    keycloakAdminToken: (url: string) => Promise<string>;
  };
  return token(keycloakUrl);
}

/**
 * A real user's DPoP-bound access token from Keycloak (Authorization Code + PKCE through the login form, and
 * the authenticator-app code computed from `totpSecret` when Keycloak asks for one, the code redeemed with a
 * DPoP proof), with the key it is bound to, using the infra helper. Imported by path at run time: infra is
 * not a package, and its file is outside this project's TypeScript root.
 */
export async function signIn(
  issuer: string,
  username: string,
  password: string,
  totpSecret?: string,
): Promise<BoundToken> {
  const { signInWithPassword } = await keycloakWalker();
  const tokens = await signInWithPassword({
    issuer,
    username,
    password,
    ...(totpSecret === undefined ? {} : { totpSecret }),
  });
  return {
    accessToken: tokens.access_token,
    dpop: await dpopKeyFrom(tokens.dpop.privateKey, tokens.dpop.publicJwk),
  };
}

/**
 * A person signed in through the shell's flow in a browser of their own: the DPoP-bound token, and the
 * browser's cookies, which hold the Keycloak session that token belongs to (its `sid`).
 */
export async function signInBrowser(
  issuer: string,
  username: string,
  password: string,
  totpSecret?: string,
): Promise<{ token: BoundToken; cookies: Map<string, string> }> {
  const { signInWithPassword } = await keycloakWalker();
  const cookies = new Map<string, string>();
  const tokens = await signInWithPassword({
    issuer,
    username,
    password,
    ...(totpSecret === undefined ? {} : { totpSecret }),
    cookies,
  });
  return {
    token: {
      accessToken: tokens.access_token,
      dpop: await dpopKeyFrom(tokens.dpop.privateKey, tokens.dpop.publicJwk),
    },
    cookies,
  };
}

/**
 * Sends a browser (its cookies) to an authorization request, e.g. the API's for the person's account token,
 * following Keycloak's redirects: the answer that comes back to `redirectUri`, or the page Keycloak stops at.
 */
export async function openAuthorization(options: Parameters<KeycloakWalker['openAuthorization']>[0]) {
  const { openAuthorization: open } = await keycloakWalker();
  return open(options);
}

/**
 * Runs one of Keycloak's application-initiated actions (`kc_action`) as the person does from the shell:
 * signing in on the way and confirming or cancelling where Keycloak asks. Returns `kc_action_status`.
 */
export async function runAccountAction(options: Parameters<KeycloakWalker['runAccountAction']>[0]) {
  const { runAccountAction: run } = await keycloakWalker();
  return run(options);
}

/**
 * A browser in which the person signed in at Keycloak (password, and app code from `totpSecret` when asked):
 * its cookies, which hold their Keycloak session, for {@link openAccountAction}.
 */
export async function signedInBrowser(
  issuer: string,
  username: string,
  password: string,
  totpSecret?: string,
): Promise<Map<string, string>> {
  const { signInWithPassword } = await keycloakWalker();
  const cookies = new Map<string, string>();
  await signInWithPassword({
    issuer,
    username,
    password,
    ...(totpSecret === undefined ? {} : { totpSecret }),
    cookies,
  });
  return cookies;
}

/**
 * Sends a browser (its cookies) to one of Keycloak's application-initiated actions as another site can, the
 * person pressing nothing: returns the page it stopped at, or the `error` and `kc_action_status` it came back
 * with.
 */
export async function openAccountAction(options: Parameters<KeycloakWalker['openAccountAction']>[0]) {
  const { openAccountAction: open } = await keycloakWalker();
  return open(options);
}
