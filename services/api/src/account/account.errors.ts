import { DomainError } from '../common/errors/domain-errors.js';
import { type AuthScheme, challenge } from '../auth/index.js';

// The account's refusals (their codes and statuses: common/errors/error-catalogue.ts).

/**
 * The API holds no token of the caller's own for Keycloak's account API in this session (none yet, expired, or
 * refused by Keycloak), or the answer meant to give it one does not fit this request. The person grants one by
 * signing in to Keycloak for the API (`POST /api/account/access-request`): silent while their Keycloak session
 * lives, and nothing an administrator holds can stand in for it.
 */
export class AccountAccessRequiredError extends DomainError {
  readonly code = 'account_access_required';
  constructor(reason: string) {
    super(
      `Atrium acts on your account at Keycloak only with your own permission, given by signing in there for it ` +
        `(${reason}). Continue at Keycloak and come back.`,
    );
  }
}

/**
 * The token's subject is an account deleted at Keycloak, whose data the API erased: a token that is still
 * valid after the deletion may not bring any of it back (RFC 6750 invalid_token, as for a revoked token).
 */
export class AccountDeletedError extends DomainError {
  readonly code = 'account_deleted';
  override readonly headers: Readonly<Record<string, string>>;
  constructor(scheme: AuthScheme) {
    super('The access token belongs to an account that was deleted; sign in with another account.');
    this.headers = {
      'WWW-Authenticate': challenge(scheme, 'invalid_token', 'the account this token belongs to was deleted'),
    };
  }
}

/** Keycloak's admin API did not answer, or refused the API's own service account; nothing was changed. */
export class IdentityAdminUnavailableError extends DomainError {
  readonly code = 'identity_admin_unavailable';
  override readonly headers = { 'Retry-After': '30' };
  constructor(options?: ErrorOptions) {
    super('The account service (Keycloak) is unavailable; nothing was changed. Try again shortly.', options);
  }
}
