import type { ErrorCode } from './error-catalogue.js';

/** A field-level validation message, as returned in a problem's `errors` member. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

/**
 * Base of every error the API means to report to a client. Domain and infrastructure code throw these
 * (never HTTP exceptions); the problem filter turns them into RFC 9457 documents. The errors any module may
 * throw are in this file; each module's own sit next to it (`<module>/<module>.errors.ts`); every code, with
 * its status, is in the one table error-catalogue.ts.
 */
export abstract class DomainError extends Error {
  abstract readonly code: ErrorCode;
  /** Extra response headers the error implies (e.g. `Retry-After`, `WWW-Authenticate`). */
  readonly headers: Readonly<Record<string, string>> = {};
  /** Problem extension members (RFC 9457 §3.2). */
  readonly extensions: Readonly<Record<string, unknown>> = {};
}

/** A body larger than the route accepts (routes with a tighter bound than the API-wide limit). */
export class PayloadTooLargeError extends DomainError {
  readonly code = 'payload_too_large';
  constructor(limitBytes: number, what: string) {
    super(`${what} may be at most ${limitBytes} bytes; send fewer reports per request.`);
  }
}

/** The caller sent more requests of this kind than allowed in the current window. */
export class RateLimitedError extends DomainError {
  readonly code = 'rate_limited';
  override readonly headers: Readonly<Record<string, string>>;
  constructor(what: string, perMinute: number, retryAfterSeconds: number) {
    super(`${what}: at most ${perMinute} per minute. Try again in ${retryAfterSeconds} s.`);
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
