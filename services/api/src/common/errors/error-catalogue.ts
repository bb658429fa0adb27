/**
 * Every problem `code` the API can answer with. The documentation of each code lives in docs/errors.md
 * under a heading equal to the code; `type` in a problem document names it (`urn:atrium:problem:<code>`). Adding a code means
 * adding it here and there, nowhere else. `example` is a typical `detail`, shown in the OpenAPI document.
 */
export const ERROR_CATALOGUE = {
  unauthenticated: {
    status: 401,
    title: 'Authentication required',
    example:
      'This resource needs an access token in the Authorization header (Bearer, or DPoP with a proof).',
  },
  invalid_token: {
    status: 401,
    title: 'Invalid access token',
    example: 'The access token was refused: the token has expired.',
  },
  invalid_dpop_proof: {
    status: 401,
    title: 'Invalid DPoP proof',
    example: 'The DPoP proof was refused: htu does not match the request URL.',
  },
  dpop_required: {
    status: 401,
    title: 'DPoP-bound access token sent as Bearer',
    example:
      'This access token is bound to a key (DPoP): send it as Authorization: DPoP with a DPoP proof header.',
  },
  invalid_request: {
    status: 400,
    title: 'Invalid authentication request',
    example: "The request's credentials are malformed: the Authorization header must be Bearer <token>.",
  },
  insufficient_scope: {
    status: 403,
    title: 'Insufficient permissions',
    example: 'The access token is valid but not sufficient: this needs the realm role atrium-admin.',
  },
  not_remote_owner: {
    status: 403,
    title: 'Not the owner of this remote',
    example: 'Remote "profile" is owned by atrium-deployer; only that client may publish its versions.',
  },
  dev_override_refused: {
    status: 403,
    title: 'Dev override not allowed',
    example: 'Dev overrides are off on this deployment (DEV_OVERRIDE_ORIGINS is not set).',
  },
  personal_session_required: {
    status: 403,
    title: 'A personal session is required',
    example:
      'Only a person signed in through the Atrium shell can report field telemetry; this token was issued to "atrium-deployer".',
  },
  canary_audience_refused: {
    status: 403,
    title: 'Canary audience needs an administrator',
    example:
      'Only an administrator can aim a canary of "profile" at the role atrium-admin, which the remote does not require.',
  },
  account_access_required: {
    status: 403,
    title: 'Your permission at Keycloak is needed',
    example:
      'Atrium acts on your account at Keycloak only with your own permission, given by signing in there for it (none in this session yet). Continue at Keycloak and come back.',
  },
  account_deleted: {
    status: 401,
    title: 'Account deleted',
    example: 'The access token belongs to an account that was deleted; sign in with another account.',
  },
  validation_failed: {
    status: 400,
    title: 'Request validation failed',
    example: 'The request is invalid: theme: must be one of system, light, dark.',
  },
  remote_origin_refused: {
    status: 400,
    title: 'Manifest origin not allowed',
    example:
      'The request is invalid: manifestUrl: origin https://cdn.example.test is not allowed (allowed: http://localhost:4100).',
  },
  malformed_request: {
    status: 400,
    title: 'Malformed request',
    example: 'The request could not be parsed (for example, the body is not valid JSON).',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    example: 'There is no such resource.',
  },
  remote_not_found: {
    status: 404,
    title: 'Remote not found',
    example: 'No remote is registered as "profile".',
  },
  version_not_found: {
    status: 404,
    title: 'Version not found',
    example: 'Remote "profile" has no version 9.9.9.',
  },
  version_exists: {
    status: 409,
    title: 'Version already published',
    example: 'Remote "profile" already has version 1.0.0; versions are immutable, publish a new one.',
  },
  remote_exists: {
    status: 409,
    title: 'Remote already exists',
    example: 'A remote named "profile" already exists; change its settings with PATCH /api/remotes/profile.',
  },
  path_in_use: {
    status: 409,
    title: 'Route path in use',
    example: 'The path /profile belongs to remote "profile".',
  },
  version_unverifiable: {
    status: 409,
    title: 'Version has no integrity hashes',
    example:
      'Version 0.9.0 of "profile" has no integrity hashes, so the shell could not check it; publish it again.',
  },
  version_withdrawn: {
    status: 409,
    title: 'Version withdrawn',
    example:
      'Remote "profile" version 1.1.0 was withdrawn (leaks data) and is never served again: publish a fixed version and activate that one.',
  },
  version_in_use: {
    status: 409,
    title: 'Version is being served',
    example:
      'Remote "profile" version 1.0.1 is the active version: activate another version first, then withdraw this one.',
  },
  rollout_in_progress: {
    status: 409,
    title: 'A canary is already running',
    example:
      'Remote "profile" already runs version 1.1.0 as a canary: promote or abort it (POST /api/remotes/{name}/rollout/promote or /abort) before starting another.',
  },
  no_rollout: {
    status: 409,
    title: 'No canary is running',
    example: 'Remote "profile" runs no canary: start one with POST /api/remotes/profile/rollout.',
  },
  no_stable_version: {
    status: 409,
    title: 'The remote has no active version',
    example:
      'Remote "profile" has no active version to fall back to: activate its first version (PUT /api/remotes/{name}/active) instead of starting a canary.',
  },
  shared_dependency_conflict: {
    status: 409,
    title: 'Shared dependencies do not match what is live',
    example:
      'Remote "profile" 2.0.0 cannot run beside what is live: it needs react ^20.0.0, and the shell provides 19.3.1.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    example: 'The request body is larger than this API accepts.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    example: 'Telemetry reports: at most 12 per minute. Try again in 20 s.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    example: 'The request body must be application/json.',
  },
  request_rejected: {
    status: 400,
    title: 'Request rejected',
    example:
      'A value in the request cannot be stored: it is too long, out of range or not valid text (for example, it contains a NUL character).',
  },
  issuer_unavailable: {
    status: 503,
    title: 'Identity provider unavailable',
    example: "The identity provider's signing keys could not be loaded; try again shortly.",
  },
  database_unavailable: {
    status: 503,
    title: 'Database unavailable',
    example: 'The database is unavailable; nothing was changed. Try again shortly.',
  },
  shell_manifest_unavailable: {
    status: 503,
    title: "The shell's manifest is unavailable",
    example:
      "The shell's manifest http://shell:4000/mf-manifest.json (SHELL_MANIFEST_URL) could not be read (HTTP 404), so the release's shared dependencies could not be checked; nothing was changed.",
  },
  identity_admin_unavailable: {
    status: 503,
    title: 'Account service unavailable',
    example: 'The account service (Keycloak) is unavailable; nothing was changed. Try again shortly.',
  },
  internal_error: {
    status: 500,
    title: 'Internal server error',
    example: 'The server failed to handle this request. It has been logged.',
  },
} as const satisfies Record<string, { status: number; title: string; example: string }>;

/** A stable, documented problem code. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Prefix of the problem `type` URIs. A URN rather than a web address: the type must stay stable wherever
 * Atrium is deployed and whoever hosts its docs; `urn:atrium:problem:<code>` is documented in
 * docs/errors.md under the heading `<code>`.
 */
export const PROBLEM_TYPE_PREFIX = 'urn:atrium:problem:';

/** The `type` URI of a code's problem document. */
export function problemType(code: ErrorCode): string {
  return `${PROBLEM_TYPE_PREFIX}${code}`;
}
