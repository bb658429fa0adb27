/** The claims of a verified access token that the API relies on. */
export interface AccessTokenClaims {
  readonly sub: string;
  readonly preferred_username?: string;
  readonly email?: string;
  readonly name?: string;
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
}

/** Builds the caller from verified claims; missing optional claims become null, never guesses. */
export function toAuthenticatedUser(claims: AccessTokenClaims): AuthenticatedUser {
  const roles = claims.realm_access?.roles;
  return {
    sub: claims.sub,
    username: typeof claims.preferred_username === 'string' ? claims.preferred_username : claims.sub,
    email: typeof claims.email === 'string' ? claims.email : null,
    name: typeof claims.name === 'string' ? claims.name : null,
    roles: Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string') : [],
  };
}
