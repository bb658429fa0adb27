/**
 * Every problem `code` the API can answer with. The documentation of each code lives in docs/errors.md
 * under a heading equal to the code; `type` in a problem document names it (`urn:atrium:problem:<code>`). Adding a code means
 * adding it here and there, nowhere else.
 */
export const ERROR_CATALOGUE = {
  unauthenticated: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'Invalid access token' },
  invalid_dpop_proof: { status: 401, title: 'Invalid DPoP proof' },
  dpop_required: { status: 401, title: 'DPoP-bound access token sent as Bearer' },
  invalid_request: { status: 400, title: 'Invalid authentication request' },
  insufficient_scope: { status: 403, title: 'Insufficient permissions' },
  not_remote_owner: { status: 403, title: 'Not the owner of this remote' },
  validation_failed: { status: 400, title: 'Request validation failed' },
  malformed_request: { status: 400, title: 'Malformed request' },
  not_found: { status: 404, title: 'Not found' },
  remote_not_found: { status: 404, title: 'Remote not found' },
  version_not_found: { status: 404, title: 'Version not found' },
  version_exists: { status: 409, title: 'Version already published' },
  remote_exists: { status: 409, title: 'Remote already exists' },
  path_in_use: { status: 409, title: 'Route path in use' },
  version_unverifiable: { status: 409, title: 'Version has no integrity hashes' },
  rollout_in_progress: { status: 409, title: 'A canary is already running' },
  no_rollout: { status: 409, title: 'No canary is running' },
  no_stable_version: { status: 409, title: 'The remote has no active version' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  rate_limited: { status: 429, title: 'Too many requests' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  request_rejected: { status: 400, title: 'Request rejected' },
  issuer_unavailable: { status: 503, title: 'Identity provider unavailable' },
  database_unavailable: { status: 503, title: 'Database unavailable' },
  internal_error: { status: 500, title: 'Internal server error' },
} as const satisfies Record<string, { status: number; title: string }>;

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
