/** The claims of a verified access token that the API relies on. */
export interface AccessTokenClaims {
  readonly sub: string;
  readonly exp?: number;
  readonly preferred_username?: string;
  readonly email?: string;
  readonly name?: string;
  readonly azp?: string;
  readonly client_id?: string;
  readonly realm_access?: { readonly roles?: readonly string[] };
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
  /** The token's `exp` (seconds since the epoch): how long a verified token may be reused from the cache. */
  readonly expiresAt: number;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value : undefined;

/** Builds the caller from verified claims; missing optional claims become null, never guesses. */
export function toAuthenticatedUser(claims: AccessTokenClaims): AuthenticatedUser {
  const roles = claims.realm_access?.roles;
  const username = text(claims.preferred_username);
  return {
    sub: claims.sub,
    username: username ?? claims.sub,
    email: text(claims.email) ?? null,
    name: text(claims.name) ?? null,
    roles: Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string') : [],
    actor: username ?? text(claims.azp) ?? text(claims.client_id) ?? claims.sub,
    expiresAt: typeof claims.exp === 'number' ? claims.exp : 0,
  };
}
