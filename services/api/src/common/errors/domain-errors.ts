import type { ErrorCode } from './error-catalogue.js';

/** A field-level validation message, as returned in a problem's `errors` member. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/**
 * Base of every error the API means to report to a client. Domain and infrastructure code throw these
 * (never HTTP exceptions); the problem filter turns them into RFC 9457 documents.
 */
export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
  /** Extra response headers the error implies (e.g. `Retry-After`, `WWW-Authenticate`). */
  readonly headers: Readonly<Record<string, string>> = {};
  /** Problem extension members (RFC 9457 §3.2). */
  readonly extensions: Readonly<Record<string, unknown>> = {};
}

const BEARER_REALM = 'Bearer realm="atrium"';

/** No credentials were presented (RFC 6750 §3.1: no error code in the challenge). */
export class UnauthenticatedError extends DomainError {
  readonly code = 'unauthenticated';
  override readonly headers = { 'WWW-Authenticate': BEARER_REALM };
  constructor() {
    super('This resource needs a bearer access token in the Authorization header.');
  }
}

/** A token was presented and refused; `description` must not echo the token itself. */
export class InvalidTokenError extends DomainError {
  readonly code = 'invalid_token';
  override readonly headers: Readonly<Record<string, string>>;
  constructor(description: string) {
    super(`The access token was refused: ${description}.`);
    const quoted = description.replace(/["\\]/g, "'");
    this.headers = {
      'WWW-Authenticate': `${BEARER_REALM}, error="invalid_token", error_description="${quoted}"`,
    };
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

/** The database did not answer; the request changed nothing. */
export class DatabaseUnavailableError extends DomainError {
  readonly code = 'database_unavailable';
  override readonly headers = { 'Retry-After': '5' };
  constructor(options?: { cause?: unknown }) {
    super('The database is unavailable; nothing was changed. Try again shortly.', options);
  }
}

/** The request's body or parameters broke the contract; `errors` names each bad field. */
export class ValidationFailedError extends DomainError {
  readonly code = 'validation_failed';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(readonly errors: readonly FieldError[]) {
    super(`The request is invalid: ${errors.map((error) => `${error.field}: ${error.message}`).join('; ')}.`);
    this.extensions = { errors };
  }
}
