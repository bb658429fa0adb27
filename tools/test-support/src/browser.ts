// The tests' browser: Keycloak's pages walked over plain HTTP with a cookie jar, as a person does in the shell, for
// integration tests and scripts that need a real user's tokens or Keycloak's answer to an account action.
import { createHash, randomBytes } from 'node:crypto';
import { generateSync } from 'otplib';
import { SHELL_CALLBACK } from './addresses.ts';
import { type BoundToken, createDpopKey, type DpopKey } from './dpop.ts';

export interface SignInOptions {
  /** Realm issuer, e.g. `http://localhost:8080/realms/atrium`. */
  issuer: string;
  username: string;
  password: string;
  /**
   * The secret of the person's authenticator app as Keycloak keeps it (`secretData.value`): when Keycloak asks
   * for a code after the password, one it has not seen yet is computed from it.
   */
  totpSecret?: string;
  /** Default `atrium-shell`. */
  clientId?: string;
  /** Default `http://localhost:4000/auth/callback`, the shell's registered callback. */
  redirectUri?: string;
  /** Default `openid`. */
  scope?: string;
  /** Default true. False redeems the code without a DPoP proof (to show that Keycloak refuses that). */
  dpop?: boolean;
  /**
   * The browser's cookies. Given, the Keycloak session the sign-in starts stays in it, as in the person's
   * browser, for {@link openAccountAction}; by default each sign-in has a jar of its own.
   */
  cookies?: CookieJar;
}

/** A browser's cookies for Keycloak, name to value. */
export type CookieJar = Map<string, string>;

/** Tokens from the token endpoint. */
export interface SignInTokens {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  expires_in: number;
  /** `DPoP` for the atrium-shell client: the tokens are bound to {@link SignInTokens.dpop}. */
  token_type: string;
  scope: string;
  /** The ES256 key the tokens are bound to (DPoP, RFC 9449), as a browser keeps it: it signs the proofs. */
  dpop: DpopKey;
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
 * Keycloak's login form (and an authenticator-app code, given `totpSecret`) over plain HTTP, and redeems the
 * code with a DPoP proof of a fresh ES256 key, as the shell does (atrium-shell requires DPoP-bound tokens). Returns the tokens and that key. For integration
 * tests and scripts that need a real user's token: the realm deliberately offers no password grant (direct
 * access grants are off).
 */
export async function signInWithPassword(options: SignInOptions): Promise<SignInTokens> {
  const clientId = options.clientId ?? 'atrium-shell';
  const redirectUri = options.redirectUri ?? SHELL_CALLBACK;
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const { callback } = await throughKeycloak(
    options,
    authorizeUrl(options, { state, verifier }),
    redirectUri,
    undefined,
    options.cookies,
  );
  if (callback === null) throw new SignInError('Keycloak did not send the browser back.', 'callback');
  if (callback.searchParams.get('state') !== state)
    throw new SignInError('The state came back changed.', 'callback');
  const code = callback.searchParams.get('code');
  if (!code) throw new SignInError(`No code in the callback: ${callback.search}`, 'callback');

  const dpop = await createDpopKey();
  const tokenEndpoint = `${options.issuer}/protocol/openid-connect/token`;
  const tokenResponse = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(options.dpop === false ? {} : { dpop: await dpop.proof('POST', tokenEndpoint) }),
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

/**
 * A real user's DPoP-bound access token from Keycloak ({@link signInWithPassword}), with the key it is bound to:
 * what a signed-in browser holds.
 */
export async function signIn(
  issuer: string,
  username: string,
  password: string,
  totpSecret?: string,
): Promise<BoundToken> {
  return (await signInBrowser(issuer, username, password, totpSecret)).token;
}

/**
 * A person signed in through the shell's flow in a browser of their own: the DPoP-bound token, and the
 * browser's cookies, which hold the Keycloak session that token belongs to (its `sid`), e.g. for
 * {@link openAccountAction} or {@link openAuthorization}.
 */
export async function signInBrowser(
  issuer: string,
  username: string,
  password: string,
  totpSecret?: string,
): Promise<{ token: BoundToken; cookies: CookieJar }> {
  const cookies: CookieJar = new Map();
  const tokens = await signInWithPassword({
    issuer,
    username,
    password,
    ...(totpSecret === undefined ? {} : { totpSecret }),
    cookies,
  });
  return { token: { accessToken: tokens.access_token, dpop: tokens.dpop }, cookies };
}

export interface AccountActionOptions extends Omit<SignInOptions, 'dpop' | 'scope'> {
  /** Keycloak's `kc_action` value, e.g. `CONFIGURE_TOTP` or `delete_credential:<credential id>`. */
  kcAction: string;
  /** What the person presses on a page that asks them to confirm (delete-credential): confirm or cancel. */
  answer: 'confirm' | 'cancel';
}

/** How an application-initiated action ended, as the shell's callback would see it. */
export interface AccountActionOutcome {
  /**
   * Keycloak's `kc_action_status` (`success`, `cancelled`, `error`), or null when it sent none, or did not send
   * the browser back at all (a deleted account: Keycloak says so on its own page, the last of `pages`, `info`).
   */
  readonly status: string | null;
  /**
   * The Keycloak pages the person went through, by {@link pageOf} (`login`, `otp-login`, `delete-credential`,
   * `deleteaccount`, `info`).
   */
  readonly pages: readonly string[];
}

/**
 * Runs one of Keycloak's application-initiated actions as a person does from the shell: an authorization
 * request of the shell's client with `kc_action`, signing in with the password (and app code) on the way, and
 * confirming or cancelling where Keycloak asks. The code that comes back is not redeemed.
 */
export async function runAccountAction(options: AccountActionOptions): Promise<AccountActionOutcome> {
  const redirectUri = options.redirectUri ?? SHELL_CALLBACK;
  const url = accountActionUrl(options, options.kcAction);
  const { callback, pages } = await throughKeycloak(
    options,
    url,
    redirectUri,
    options.answer,
    options.cookies,
  );
  return { status: callback?.searchParams.get('kc_action_status') ?? null, pages };
}

export interface OpenAccountActionOptions extends Pick<SignInOptions, 'issuer' | 'clientId' | 'redirectUri'> {
  /** Keycloak's `kc_action` value, e.g. `delete_credential:<credential id>`. */
  kcAction: string;
  /** The authorization request's `prompt`: `none` asks Keycloak to answer without showing any page. */
  prompt?: 'none';
  /** The browser's cookies, e.g. the Keycloak session of a person who signed in with them. */
  cookies: CookieJar;
}

/** Where a browser sent to an application-initiated action ended, the person pressing nothing. */
export interface OpenedAccountAction {
  /** The Keycloak page it stopped at, by {@link pageOf} (`delete-credential`, `login`, …), or null when sent back. */
  readonly page: string | null;
  /** The OAuth `error` of the redirect back (`interaction_required`, `login_required`, …), or null. */
  readonly error: string | null;
  /** The `kc_action_status` of the redirect back, or null. */
  readonly status: string | null;
  /**
   * Who may show the page it stopped at in a frame, as its headers say (CSP `frame-ancestors`,
   * `X-Frame-Options`), or null when sent back: a site that framed it could have the person press its button
   * unawares.
   */
  readonly framing: { readonly frameAncestors: string | null; readonly xFrameOptions: string | null } | null;
}

/**
 * What another site achieves by sending a browser to the shell's authorization request with `kc_action` (a
 * link, a form, `location.href`): the top-level navigation carries Keycloak's cookies along, so a person signed
 * in there is recognised. Follows Keycloak's redirects with `cookies` and answers no page: the person presses
 * nothing. The code that may come back is not redeemed.
 */
export async function openAccountAction(options: OpenAccountActionOptions): Promise<OpenedAccountAction> {
  const redirectUri = options.redirectUri ?? SHELL_CALLBACK;
  const url = accountActionUrl(options, options.kcAction);
  if (options.prompt !== undefined) url.searchParams.set('prompt', options.prompt);
  const send = browserFetch(options.cookies);
  const reached = await followRedirects(send, await send(url.href), url, redirectUri);
  if ('page' in reached) {
    const { headers } = reached.page;
    const frameAncestors = /(?:^|;)\s*frame-ancestors\s+([^;]*)/.exec(
      headers.get('content-security-policy') ?? '',
    );
    return {
      page: pageOf(await reached.page.text()),
      error: null,
      status: null,
      framing: {
        frameAncestors: frameAncestors?.[1]?.trim() ?? null,
        xFrameOptions: headers.get('x-frame-options'),
      },
    };
  }
  const query = reached.callback.searchParams;
  return { page: null, error: query.get('error'), status: query.get('kc_action_status'), framing: null };
}

/** Where a browser sent to an authorization request ended, the person pressing nothing. */
export type OpenedAuthorization =
  | { readonly callback: URL; readonly page?: undefined }
  | { readonly page: string; readonly callback?: undefined };

/**
 * Sends a browser (its cookies) to an authorization request made elsewhere (e.g. the API's, for its own client)
 * and follows Keycloak's redirects: back to `redirectUri` with the answer when the person's session there is
 * enough, or the page Keycloak stops at. Nothing is answered and no code is redeemed.
 */
export async function openAuthorization(options: {
  authorizationUrl: string;
  redirectUri: string;
  cookies: CookieJar;
}): Promise<OpenedAuthorization> {
  const url = new URL(options.authorizationUrl);
  const send = browserFetch(options.cookies);
  const reached = await followRedirects(send, await send(url.href), url, options.redirectUri);
  return 'callback' in reached ? { callback: reached.callback } : { page: pageOf(await reached.page.text()) };
}

/** The authorization request of the shell's flow: Authorization Code with PKCE (S256). */
function authorizeUrl(
  options: Pick<SignInOptions, 'issuer' | 'clientId' | 'redirectUri' | 'scope'>,
  { state, verifier }: { state: string; verifier: string },
): URL {
  const url = new URL(`${options.issuer}/protocol/openid-connect/auth`);
  url.search = new URLSearchParams({
    client_id: options.clientId ?? 'atrium-shell',
    response_type: 'code',
    scope: options.scope ?? 'openid',
    redirect_uri: options.redirectUri ?? SHELL_CALLBACK,
    state,
    nonce: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  return url;
}

/** An authorization request of the shell's client asking for `kcAction`; its code is never redeemed. */
function accountActionUrl(
  options: Pick<SignInOptions, 'issuer' | 'clientId' | 'redirectUri' | 'scope'>,
  kcAction: string,
): URL {
  const url = authorizeUrl(options, {
    state: randomBytes(16).toString('base64url'),
    verifier: randomBytes(32).toString('base64url'),
  });
  url.searchParams.set('kc_action', kcAction);
  return url;
}

/** The 30 s windows whose codes were given already, per secret: Keycloak takes each code once. */
const usedWindows = new Set<string>();

/**
 * An authenticator-app code Keycloak has not seen, for a secret as Keycloak keeps it (its bytes are the key):
 * the current window's, else the next one's or the previous one's (the realm looks one window either way),
 * else the next window's once it comes.
 */
async function freshTotpCode(secret: string): Promise<string> {
  for (;;) {
    const now = Date.now() / 1000;
    const current = Math.floor(now / 30);
    // The previous window only while it cannot slip out of reach before Keycloak checks.
    const offsets = now - current * 30 < 25 ? [0, 1, -1] : [0, 1];
    for (const offset of offsets) {
      const key = `${secret}:${current + offset}`;
      if (usedWindows.has(key)) continue;
      usedWindows.add(key);
      return generateSync({
        secret: Buffer.from(secret, 'utf8'),
        algorithm: 'sha1',
        digits: 6,
        period: 30,
        epoch: (current + offset) * 30,
      });
    }
    await new Promise((resolve) => setTimeout(resolve, ((current + 1) * 30 - now) * 1000 + 200));
  }
}

type BrowserFetch = (url: string, form?: Record<string, string>) => Promise<Response>;

/**
 * Requests as a browser makes them to Keycloak, one at a time: the cookies in `cookies` go along, the ones
 * Keycloak sets or expires are kept or dropped there. Redirects are not followed.
 */
function browserFetch(cookies: CookieJar): BrowserFetch {
  return async (url, form) => {
    const response = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(form ? { body: new URLSearchParams(form) } : {}),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = cookie.split(';');
      const at = pair.indexOf('=');
      if (at <= 0) continue;
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired) cookies.delete(pair.slice(0, at));
      else cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
}

/** Follows Keycloak's redirects from `response` to the redirect back to `redirectUri`, or to a page it shows. */
async function followRedirects(
  send: BrowserFetch,
  response: Response,
  base: URL,
  redirectUri: string,
): Promise<{ callback: URL } | { page: Response }> {
  for (let step = 0; step < 12; step += 1) {
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return { page: response };
    const next = new URL(location, response.url || base);
    if (next.href.startsWith(redirectUri)) return { callback: next };
    response = await send(next.href);
  }
  throw new SignInError('Keycloak kept redirecting.', 'unknown');
}

/**
 * Follows Keycloak from the authorization request to the redirect back to `redirectUri` over plain HTTP with
 * a cookie jar, answering each page the person knows the answer to once: the login form (also when Keycloak
 * asks for the password again), the app code, a confirmation (`answer`). Any other page, or one asked again (a
 * rejected password or code), stops it, except Keycloak's own page after a deletion it confirmed, which ends
 * the walk without a callback.
 */
async function throughKeycloak(
  person: Pick<SignInOptions, 'username' | 'password' | 'totpSecret'>,
  authorize: URL,
  redirectUri: string,
  answer?: 'confirm' | 'cancel',
  cookies: CookieJar = new Map(),
): Promise<{ callback: URL | null; pages: string[] }> {
  const send = browserFetch(cookies);
  const pages: string[] = [];
  let response = await send(authorize.toString());
  for (let step = 0; step < 12; step += 1) {
    const reached = await followRedirects(send, response, authorize, redirectUri);
    if ('callback' in reached) return { callback: reached.callback, pages };
    response = reached.page;
    const html = await response.text();
    const page = pageOf(html);
    const action = formAction(html);
    const answered = pages.includes(page);
    pages.push(page);
    if (page === 'info' && pages.at(-2) === 'deleteaccount') return { callback: null, pages };
    if (!action) {
      throw new SignInError(
        pages.length === 1
          ? `Keycloak did not show its login form (HTTP ${response.status}).`
          : `Keycloak stopped at a page without a form (HTTP ${response.status}).`,
        page,
      );
    }
    if (page === 'login' && !answered) {
      // Asked to sign in again (a delete_account), Keycloak shows the name it knows and wants the password only.
      const again = /\sid="kc-attempted-username"/.test(html);
      response = await send(action, {
        ...(again ? {} : { username: person.username }),
        password: person.password,
        credentialId: '',
      });
    } else if (page === 'otp-login' && !answered && person.totpSecret) {
      response = await send(action, { otp: await freshTotpCode(person.totpSecret) });
    } else if (page === 'delete-credential' && !answered && answer) {
      response = await send(action, answer === 'confirm' ? { accept: '' } : { 'cancel-aia': '' });
    } else if (page === 'deleteaccount' && !answered && answer) {
      response = await send(action, answer === 'confirm' ? {} : { 'cancel-aia': 'true' });
    } else {
      throw new SignInError(`Signing in as ${person.username} stopped at Keycloak's "${page}" page.`, page);
    }
  }
  throw new SignInError('Keycloak kept asking.', 'unknown');
}

/** The `action` of the first form on a Keycloak page, HTML entities decoded. */
export function formAction(html: string): string | undefined {
  const match = /<form[^>]*\saction="([^"]+)"/i.exec(html);
  return match?.[1]?.replaceAll('&amp;', '&');
}

/** Which Keycloak page this is, from the form id its templates use (`kc-form-login`, `kc-update-profile-form`, …). */
export function pageOf(html: string): string {
  // delete-credential.ftl's form has no id: its confirmation text names the page.
  if (/\sid="kc-delete-text"/.test(html)) return 'delete-credential';
  // info.ftl (e.g. "User deleted successfully") has no form.
  if (/\sid="kc-info-message"/.test(html)) return 'info';
  const id = /<form[^>]*\sid="kc-([a-z-]+?)(?:-form)?"/i.exec(html)?.[1];
  if (id === 'form-login') return 'login';
  return id ?? 'unknown';
}
