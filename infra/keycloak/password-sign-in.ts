import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export interface SignInOptions {
  /** Realm issuer, e.g. `http://localhost:8080/realms/atrium`. */
  issuer: string;
  username: string;
  password: string;
  /** Default `atrium-shell`. */
  clientId?: string;
  /** Default `http://localhost:4000/auth/callback`, the shell's registered callback. */
  redirectUri?: string;
  /** Default `openid`. */
  scope?: string;
  /** Default true. False redeems the code without a DPoP proof (to show that Keycloak refuses that). */
  dpop?: boolean;
}

/**
 * The ES256 key pair the tokens are bound to (DPoP, RFC 9449), as a browser would keep it: a test signs a
 * proof with `privateKey` (header `jwk` = `publicJwk`) for every API call it makes with the access token.
 */
export interface DpopKeyPair {
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  /** RFC 7638 thumbprint of `publicJwk`: the access token's `cnf.jkt`. */
  readonly jkt: string;
}

/** A fresh ES256 key pair for DPoP. */
export async function generateDpopKeyPair(): Promise<DpopKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicJwk, jkt: await calculateJwkThumbprint(publicJwk, 'sha256') };
}

/** A DPoP proof (RFC 9449 §4.2) for one request to the authorization server (no access token, so no `ath`). */
export function tokenRequestProof(key: DpopKeyPair, htu: string): Promise<string> {
  return new SignJWT({ htm: 'POST', htu, jti: randomUUID(), iat: Math.floor(Date.now() / 1000) })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk })
    .sign(key.privateKey);
}

/** Tokens from the token endpoint. */
export interface SignInTokens {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  expires_in: number;
  /** `DPoP` for the atrium-shell client: the tokens are bound to {@link SignInTokens.dpop}. */
  token_type: string;
  scope: string;
  /** The key the tokens are bound to; proofs for API calls are signed with it. */
  dpop: DpopKeyPair;
}

/** Thrown when Keycloak shows a page instead of redirecting back: wrong password, or a required action. */
export class SignInError extends Error {
  /** Keycloak's page: `login` (credentials rejected), `update-profile`, `passwd-update`, … or `unknown`. */
  readonly page: string;
  constructor(message: string, page: string) {
    super(message);
    this.name = 'SignInError';
    this.page = page;
  }
}

/**
 * Signs a user in through the same Authorization Code + PKCE (S256) flow as the shell, by submitting
 * Keycloak's login form over plain HTTP, and redeems the code with a DPoP proof of a fresh ES256 key, as the
 * shell does (atrium-shell requires DPoP-bound tokens). Returns the tokens and that key. For integration
 * tests and scripts that need a real user's token: the realm deliberately offers no password grant (direct
 * access grants are off).
 */
export async function signInWithPassword(options: SignInOptions): Promise<SignInTokens> {
  const clientId = options.clientId ?? 'atrium-shell';
  const redirectUri = options.redirectUri ?? 'http://localhost:4000/auth/callback';
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const state = randomBytes(16).toString('base64url');
  const cookies = new Map<string, string>();
  const remember = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const at = pair.indexOf('=');
      if (at > 0) cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  const cookieHeader = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');

  const authorize = new URL(`${options.issuer}/protocol/openid-connect/auth`);
  authorize.search = new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    scope: options.scope ?? 'openid',
    redirect_uri: redirectUri,
    state,
    nonce: randomBytes(16).toString('base64url'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  }).toString();
  const loginPage = await fetch(authorize, { redirect: 'manual' });
  remember(loginPage);
  const loginHtml = await loginPage.text();
  const action = formAction(loginHtml);
  if (!loginPage.ok || !action) {
    throw new SignInError(
      `Keycloak did not show its login form (HTTP ${loginPage.status}).`,
      pageOf(loginHtml),
    );
  }

  const submitted = await fetch(action, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookieHeader() },
    body: new URLSearchParams({ username: options.username, password: options.password, credentialId: '' }),
  });
  const location = submitted.headers.get('location');
  if (submitted.status !== 302 || !location?.startsWith(redirectUri)) {
    const page = pageOf(await submitted.text());
    throw new SignInError(`Signing in as ${options.username} stopped at Keycloak's "${page}" page.`, page);
  }
  const callback = new URL(location);
  if (callback.searchParams.get('state') !== state)
    throw new SignInError('The state came back changed.', 'callback');
  const code = callback.searchParams.get('code');
  if (!code) throw new SignInError(`No code in the callback: ${callback.search}`, 'callback');

  const dpop = await generateDpopKeyPair();
  const tokenEndpoint = `${options.issuer}/protocol/openid-connect/token`;
  const tokenResponse = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(options.dpop === false ? {} : { dpop: await tokenRequestProof(dpop, tokenEndpoint) }),
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  const body = (await tokenResponse.json()) as Omit<SignInTokens, 'dpop'> & {
    error?: string;
    error_description?: string;
  };
  if (!tokenResponse.ok) {
    throw new SignInError(
      `The token endpoint refused the code: ${body.error} ${body.error_description ?? ''}`,
      'token',
    );
  }
  return { ...body, dpop };
}

/** The `action` of the first form on a Keycloak page, HTML entities decoded. */
export function formAction(html: string): string | undefined {
  const match = /<form[^>]*\saction="([^"]+)"/i.exec(html);
  return match?.[1]?.replaceAll('&amp;', '&');
}

/** Which Keycloak page this is, from the form id its templates use (`kc-form-login`, `kc-update-profile-form`, …). */
export function pageOf(html: string): string {
  const id = /<form[^>]*\sid="kc-([a-z-]+?)(?:-form)?"/i.exec(html)?.[1];
  if (id === 'form-login') return 'login';
  return id ?? 'unknown';
}
