/**
 * Every problem `code` the API can answer with. The documentation of each code lives in docs/errors.md
 * under a heading equal to the code; `type` in a problem document links there. Adding a code means
 * adding it here and there, nowhere else.
 */
export const ERROR_CATALOGUE = {
  unauthenticated: { status: 401, title: 'Authentication required' },
  invalid_token: { status: 401, title: 'Invalid access token' },
  invalid_request: { status: 400, title: 'Invalid authentication request' },
  insufficient_scope: { status: 403, title: 'Insufficient permissions' },
  validation_failed: { status: 400, title: 'Request validation failed' },
  malformed_request: { status: 400, title: 'Malformed request' },
  not_found: { status: 404, title: 'Not found' },
  remote_not_found: { status: 404, title: 'Remote not found' },
  version_not_found: { status: 404, title: 'Version not found' },
  version_exists: { status: 409, title: 'Version already published' },
  path_in_use: { status: 409, title: 'Route path in use' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  request_rejected: { status: 400, title: 'Request rejected' },
  issuer_unavailable: { status: 503, title: 'Identity provider unavailable' },
  database_unavailable: { status: 503, title: 'Database unavailable' },
  internal_error: { status: 500, title: 'Internal server error' },
} as const satisfies Record<string, { status: number; title: string }>;

/** A stable, documented problem code. */
export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** Base of the problem `type` URIs; each code is an anchor in docs/errors.md. */
export const ERROR_DOCS_URL = 'https://github.com/atrium/atrium/blob/main/docs/errors.md';

/** The `type` URI of a code's problem document. */
export function problemType(code: ErrorCode): string {
  return `${ERROR_DOCS_URL}#${code}`;
}
