import { DomainError } from '../common/errors/domain-errors.js';

// The refusals of access-token checking (their codes and statuses: common/errors/error-catalogue.ts).

/**
 * How the credentials were presented: `Bearer` (RFC 6750) or `DPoP` (RFC 9449, a sender-constrained
 * token with a proof). A refusal challenges with the scheme the client used (RFC 9449 §7.1).
 */
export type AuthScheme = 'Bearer' | 'DPoP';

const REALM = 'realm="atrium"';

// A quoted-string in a challenge may not contain quotes or backslashes (RFC 6750 §3).
function quote(description: string): string {
  return description.replace(/["\\]/g, "'");
}

export function challenge(scheme: AuthScheme, error: string, description: string): string {
  return `${scheme} ${REALM}, error="${error}", error_description="${quote(description)}"`;
}

/**
 * No credentials were presented (RFC 6750 §3.1: no error code in the challenge). Both schemes are
 * offered (RFC 9449 §7.1): browsers hold DPoP-bound tokens, machine clients plain bearer tokens.
 */
export class UnauthenticatedError extends DomainError {
  readonly code = 'unauthenticated';
  override readonly headers = { 'WWW-Authenticate': `Bearer ${REALM}, DPoP ${REALM}` };
  constructor() {
    super('This resource needs an access token in the Authorization header (Bearer, or DPoP with a proof).');
  }
}

/** A token was presented and refused; `description` must not echo the token itself. */
export class InvalidTokenError extends DomainError {
  readonly code = 'invalid_token';
  override readonly headers: Readonly<Record<string, string>>;
  constructor(
    /** Why, safe to send back. */
    readonly description: string,
    scheme: AuthScheme = 'Bearer',
  ) {
    super(`The access token was refused: ${description}.`);
    this.headers = { 'WWW-Authenticate': challenge(scheme, 'invalid_token', description) };
  }

  /** The same refusal, challenging with the scheme the client used. */
  inScheme(scheme: AuthScheme): InvalidTokenError {
    return scheme === 'Bearer' ? this : new InvalidTokenError(this.description, scheme);
  }
}

/**
 * A DPoP-bound token (`cnf.jkt`) came with a missing or bad proof: not signed by the bound key, made for
 * another method or URL, too old or from the future, already used, or not naming this token (`ath`).
 * RFC 9449 §7.1: `error="invalid_dpop_proof"`.
 */
export class InvalidDpopProofError extends DomainError {
  readonly code = 'invalid_dpop_proof';
  override readonly headers: Readonly<Record<string, string>>;
  constructor(readonly description: string) {
    super(`The DPoP proof was refused: ${description}.`);
    this.headers = { 'WWW-Authenticate': challenge('DPoP', 'invalid_dpop_proof', description) };
  }
}

/**
 * A DPoP-bound token was presented as a bearer token (RFC 9449 §7.1 requires refusing it): whoever sends
 * it without a proof may have stolen it. The challenge asks for the DPoP scheme.
 */
export class DpopRequiredError extends DomainError {
  readonly code = 'dpop_required';
  override readonly headers = {
    'WWW-Authenticate': challenge(
      'DPoP',
      'invalid_token',
      'the token is DPoP-bound: send it as Authorization: DPoP with a DPoP proof',
    ),
  };
  constructor() {
    super(
      'The access token is DPoP-bound: send it as "Authorization: DPoP <token>" with a DPoP proof header.',
    );
  }
}

/**
 * The request's credentials are malformed (RFC 6750 §3.1 invalid_request): a broken Authorization header,
 * or a token sent somewhere other than the Authorization header.
 */
export class InvalidRequestError extends DomainError {
  readonly code = 'invalid_request';
  override readonly headers: Readonly<Record<string, string>>;
  constructor(description: string, scheme: AuthScheme = 'Bearer') {
    super(`The request's credentials are malformed: ${description}.`);
    this.headers = { 'WWW-Authenticate': challenge(scheme, 'invalid_request', description) };
  }
}

/** A valid token whose holder lacks a role the route needs (RFC 6750 §3.1 insufficient_scope). */
export class InsufficientScopeError extends DomainError {
  readonly code = 'insufficient_scope';
  override readonly headers: Readonly<Record<string, string>>;
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(requiredRoles: readonly string[], scheme: AuthScheme = 'Bearer') {
    const description = `this needs the role ${requiredRoles.join(' and ')}`;
    super(`The access token is valid but not sufficient: ${description}.`);
    this.headers = {
      'WWW-Authenticate': challenge(scheme, 'insufficient_scope', description),
    };
    this.extensions = { requiredRoles };
  }
}

/** The identity provider's signing keys cannot be obtained right now, so no token can be checked. */
export class IssuerUnavailableError extends DomainError {
  readonly code = 'issuer_unavailable';
  override readonly headers: Readonly<Record<string, string>>;
  constructor(retryAfterSeconds: number) {
    super(
      'The identity provider cannot be reached, so the access token cannot be checked yet. Try again shortly.',
    );
    this.headers = { 'Retry-After': String(retryAfterSeconds) };
  }
}

/**
 * Acts only a person does (their own account, field telemetry of what their browser loaded): only a token of
 * `SHELL_CLIENTS` (the shell people sign in through) is accepted, never a machine client's, whose `sub` is its
 * service account and whose reports no person's browser made.
 */
export class PersonalSessionRequiredError extends DomainError {
  readonly code = 'personal_session_required';
  constructor(clientId: string | null, act: string) {
    super(
      `Only a person signed in through the Atrium shell can ${act}; this token was issued to ${
        clientId ? `"${clientId}"` : 'no named client'
      }.`,
    );
  }
}
