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

function challenge(scheme: AuthScheme, error: string, description: string): string {
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

/** No remote is registered under this name. */
export class RemoteNotFoundError extends DomainError {
  readonly code = 'remote_not_found';
  /** `hint` says what to do about it, e.g. that an administrator must create the remote first. */
  constructor(name: string, hint?: string) {
    super(`No remote is registered as "${name}".${hint ? ` ${hint}` : ''}`);
  }
}

/** A remote of this name exists already; its settings are changed with PATCH, not created again. */
export class RemoteExistsError extends DomainError {
  readonly code = 'remote_exists';
  constructor(name: string) {
    super(`A remote named "${name}" already exists; change its settings with PATCH /api/remotes/${name}.`);
  }
}

/**
 * The caller is a deployer, but not the one that owns this remote: a deployer publishes and activates only
 * the remotes whose owner is its client id (the token's `azp`).
 */
export class NotRemoteOwnerError extends DomainError {
  readonly code = 'not_remote_owner';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(
    name: string,
    owner: string,
    clientId: string | null,
    act: 'publish' | 'activate' | 'roll out' | 'hand over',
  ) {
    const caller = `this token's client (azp) is ${clientId ? `"${clientId}"` : 'not named'}`;
    super(
      act === 'hand over'
        ? `Remote "${name}" is platform code, owned by "${owner}": only that client may give it another owner, ` +
            `and ${caller}. Change it with the platform's credentials, not from a browser session.`
        : `Remote "${name}" is owned by the deployer client "${owner}": only its owner may ${act} its versions` +
            `${act === 'publish' ? '' : ' (or an administrator, role atrium-admin)'}, and ${caller}. ` +
            "An administrator changes a remote's owner.",
    );
    this.extensions = { remote: name, owner };
  }
}

/**
 * A dev override the API does not allow: overrides are off here (no DEV_OVERRIDE_ORIGINS), the dev server is on
 * one of the platform's own origins or on none DEV_OVERRIDE_ORIGINS allows, the remote is unknown or one only
 * administrators may see, or the token names no sign-in session to approve it for. (Without the role
 * atrium-developer the caller gets insufficient_scope first.)
 */
export class DevOverrideRefusedError extends DomainError {
  readonly code = 'dev_override_refused';
  override readonly extensions: Readonly<Record<string, unknown>>;
  /** `reason`: the sentence the shell shows, e.g. from the rules of dev-override-rules.ts. */
  constructor(reason: string, allowedOrigins: readonly string[]) {
    super(
      allowedOrigins.length === 0
        ? 'Dev overrides are off on this deployment (DEV_OVERRIDE_ORIGINS is not set).'
        : `${reason}.`,
    );
    this.extensions = { allowedOrigins };
  }
}

/** The remote exists but has no such version. */
export class VersionNotFoundError extends DomainError {
  readonly code = 'version_not_found';
  constructor(name: string, version: string) {
    super(`Remote "${name}" has no version ${version}.`);
  }
}

/** Versions are immutable: publishing one that exists is refused rather than overwritten. */
export class VersionExistsError extends DomainError {
  readonly code = 'version_exists';
  constructor(name: string, version: string) {
    super(`Remote "${name}" already has version ${version}; versions are immutable, publish a new one.`);
  }
}

/**
 * The version was registered before integrity hashes were required, so the shell could not check what it
 * loads; it is never served and cannot be made active.
 */
export class VersionUnverifiableError extends DomainError {
  readonly code = 'version_unverifiable';
  constructor(name: string, version: string) {
    super(
      `Remote "${name}" version ${version} was registered without integrity hashes, so the shell cannot ` +
        'check it: publish it again as a new version (the release CLI records both hashes).',
    );
  }
}

/** A remote runs at most one canary at a time; it must be promoted or aborted before the next starts. */
export class RolloutInProgressError extends DomainError {
  readonly code = 'rollout_in_progress';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(name: string, version: string) {
    super(
      `Remote "${name}" already runs version ${version} as a canary: promote or abort it ` +
        '(POST /api/remotes/{name}/rollout/promote or /abort) before starting another.',
    );
    this.extensions = { canaryVersion: version };
  }
}

/** Widening, promoting or aborting needs a running canary. */
export class NoRolloutError extends DomainError {
  readonly code = 'no_rollout';
  constructor(name: string) {
    super(`Remote "${name}" runs no canary: start one with POST /api/remotes/${name}/rollout.`);
  }
}

/** A canary is served instead of the active version, so a remote without one cannot run a canary. */
export class NoStableVersionError extends DomainError {
  readonly code = 'no_stable_version';
  constructor(name: string) {
    super(
      `Remote "${name}" has no active version to fall back to: activate its first version ` +
        '(PUT /api/remotes/{name}/active) instead of starting a canary.',
    );
  }
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

/** Another remote already owns this route path. */
export class PathInUseError extends DomainError {
  readonly code = 'path_in_use';
  constructor(path: string, owner: string) {
    super(`The path ${path} belongs to remote "${owner}".`);
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

/**
 * A publish whose manifest is served from an origin the API does not allow (`ALLOWED_REMOTE_ORIGINS`): a code of
 * its own, so clients need not read the message; `errors` names `manifestUrl` as {@link ValidationFailedError} does.
 */
export class RemoteOriginRefusedError extends DomainError {
  readonly code = 'remote_origin_refused';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(message: string) {
    super(`The request is invalid: manifestUrl: ${message}.`);
    this.extensions = { errors: [{ field: 'manifestUrl', message }] };
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

/**
 * A deployer aimed a canary at realm roles the remote does not already require. The roles a canary names get
 * its code whatever share it runs at, so a feature team could otherwise put code of theirs in front of people
 * the remote is not for (administrators, whose session can change the registry); an administrator may.
 */
export class CanaryAudienceRefusedError extends DomainError {
  readonly code = 'canary_audience_refused';
  override readonly extensions: Readonly<Record<string, unknown>>;
  constructor(remote: string, roles: readonly string[], required: readonly string[]) {
    const named = roles.length === 1 ? `the role ${roles[0]}` : `the roles ${roles.join(', ')}`;
    super(
      `Only an administrator can aim a canary of "${remote}" at ${named}, which the remote does not require. ` +
        (required.length
          ? `Aim it at a share of people, or at roles the remote requires (${required.join(', ')}).`
          : 'Aim it at a share of people instead, or ask an administrator.'),
    );
    this.extensions = { roles: [...roles], requiredRoles: [...required] };
  }
}

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
