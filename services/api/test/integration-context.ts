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

/** A client-credentials access token for the `atrium-deployer` machine identity from the real Keycloak. */
export async function fetchDeployerToken(issuer: string): Promise<string> {
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
    token_endpoint: string;
  };
  const response = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'atrium-deployer',
      client_secret: process.env['ATRIUM_DEPLOYER_SECRET'] ?? 'atrium-deployer-dev-secret',
    }),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
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

/**
 * A real user's DPoP-bound access token from Keycloak (Authorization Code + PKCE through the login form,
 * the code redeemed with a DPoP proof), with the key it is bound to, using the infra helper. Imported by
 * path at run time: infra is not a package, and its file is outside this project's TypeScript root.
 */
export async function signIn(issuer: string, username: string, password: string): Promise<BoundToken> {
  const helper = new URL('../../../infra/keycloak/password-sign-in.ts', import.meta.url).href;
  const { signInWithPassword } = (await import(/* @vite-ignore */ helper)) as {
    signInWithPassword: (options: {
      issuer: string;
      username: string;
      password: string;
    }) => Promise<{ access_token: string; dpop: { privateKey: webcrypto.CryptoKey; publicJwk: JWK } }>;
  };
  const tokens = await signInWithPassword({ issuer, username, password });
  return {
    accessToken: tokens.access_token,
    dpop: await dpopKeyFrom(tokens.dpop.privateKey, tokens.dpop.publicJwk),
  };
}
