/** The claims of a verified access token that the API relies on. */
export interface AccessTokenClaims {
  readonly sub: string;
  readonly exp?: number;
  readonly iat?: number;
  readonly preferred_username?: string;
  readonly email?: string;
  readonly name?: string;
  readonly azp?: string;
  readonly client_id?: string;
  readonly realm_access?: { readonly roles?: readonly string[] };
  /** OpenID Connect session id: Keycloak's id of the sign-in session the token belongs to. */
  readonly sid?: string;
  /** RFC 9449 §6.1: a DPoP-bound token names the SHA-256 thumbprint of the client's key in `cnf.jkt`. */
  readonly cnf?: unknown;
  readonly [claim: string]: unknown;
}

/** The caller as the API sees it after the token has been checked; what `@CurrentUser()` returns. */
export interface AuthenticatedUser {
  readonly sub: string;
  readonly username: string;
  readonly email: string | null;
  readonly name: string | null;
  readonly roles: readonly string[];
  /**
   * Who the audit trail names: the user name, or for a service account without one the client
   * (`azp`/`client_id`), else `sub`.
   */
  readonly actor: string;
  /**
   * The client the token was issued to (`azp`, the authorized party), e.g. `atrium-deployer` for its
   * client-credentials token or `atrium-shell` for a person signed in through the shell; null if absent.
   * The registry matches it against a remote's owner.
   */
  readonly clientId: string | null;
  /** The token's `exp` (seconds since the epoch): how long a verified token may be reused from the cache. */
  readonly expiresAt: number;
  /**
   * The JWK thumbprint (RFC 7638) of the key the token is bound to (`cnf.jkt`, RFC 9449), or null for a
   * bearer token. A bound token is accepted only with a DPoP proof signed by that key, on every request.
   */
  readonly boundKeyThumbprint: string | null;
  /** The token's `sid`: the identity provider's session it was issued in (marks "this session"), or null. */
  readonly sessionId?: string | null;
}

/**
 * The longest `sub` the API accepts (OpenID Connect Core §2: a subject "MUST NOT exceed 255 ASCII
 * characters"). It is the profile's primary key, so it is refused rather than cut.
 */
export const MAX_SUBJECT_LENGTH = 255;
/** The longest user name, display name or client id kept from a token (the width of the columns that store them). */
export const MAX_NAME_LENGTH = 255;
/** The longest e-mail address kept from a token: RFC 5321's 64-character local part, `@`, 255-character domain. */
export const MAX_EMAIL_LENGTH = 320;

/*
 * Claims are written to varchar columns and PostgreSQL refuses a longer value (SQLSTATE 22001) or a
 * NUL character (22021) instead of storing it, which would fail every request of that user. Keycloak's
 * `name` is first and last name joined, up to 511 characters, and other issuers set no limit at all, so
 * the values are bounded here, once, before anything stores them. Lengths count code points, as
 * PostgreSQL does.
 */
const codePoints = (value: string): number => [...value].length;

/** A claim used as an identifier (user name, client id): kept whole or not at all, so it never changes meaning. */
function identifier(value: unknown, max = MAX_NAME_LENGTH): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.includes('\0')) return undefined;
  return codePoints(value) <= max ? value : undefined;
}

/** A claim only shown to people (the display name): NULs dropped and cut to the column width. */
function displayText(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const cleaned = value.replaceAll('\0', '');
  if (cleaned.length === 0) return undefined;
  return codePoints(cleaned) <= MAX_NAME_LENGTH ? cleaned : [...cleaned].slice(0, MAX_NAME_LENGTH).join('');
}

/** Why a `sub` cannot identify a profile, or undefined when it can. */
export function refuseSubject(sub: unknown): string | undefined {
  if (typeof sub !== 'string' || sub.length === 0) return 'the token has no subject (sub)';
  if (codePoints(sub) > MAX_SUBJECT_LENGTH || sub.includes('\0')) {
    return `the token's subject (sub) is not an identifier of at most ${MAX_SUBJECT_LENGTH} characters`;
  }
  return undefined;
}

// base64url of a SHA-256 digest: 43 characters.
const THUMBPRINT = /^[A-Za-z0-9_-]{43}$/;

/**
 * The key thumbprint a token is bound to: undefined when it has no `cnf` (a bearer token), or why the
 * binding cannot be honoured (another confirmation method such as mTLS `x5t#S256`, or a malformed `jkt`).
 */
export function boundThumbprintOf(claims: AccessTokenClaims): { jkt?: string; refusal?: string } {
  if (claims.cnf === undefined) return {};
  const { cnf } = claims;
  const jkt = typeof cnf === 'object' && cnf !== null ? (cnf as Record<string, unknown>)['jkt'] : undefined;
  if (typeof jkt === 'string' && THUMBPRINT.test(jkt)) return { jkt };
  return {
    refusal: 'the token is bound to a key by a method this API cannot check (cnf without a valid jkt)',
  };
}

/**
 * Builds the caller from verified claims (whose `sub` passed {@link refuseSubject}); missing optional
 * claims become null, never guesses. A user name, e-mail or client id too long to store (or holding a
 * NUL) is treated as absent, a display name is shortened to {@link MAX_NAME_LENGTH} characters.
 */
export function toAuthenticatedUser(
  claims: AccessTokenClaims,
  boundKeyThumbprint: string | null = null,
): AuthenticatedUser {
  const roles = claims.realm_access?.roles;
  const username = identifier(claims.preferred_username);
  return {
    sub: claims.sub,
    username: username ?? claims.sub,
    email: identifier(claims.email, MAX_EMAIL_LENGTH) ?? null,
    name: displayText(claims.name) ?? null,
    roles: Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string') : [],
    actor: username ?? identifier(claims.azp) ?? identifier(claims.client_id) ?? claims.sub,
    clientId: identifier(claims.azp) ?? null,
    expiresAt: typeof claims.exp === 'number' ? claims.exp : 0,
    boundKeyThumbprint,
    sessionId: identifier(claims.sid) ?? null,
  };
}
