import type { components } from './generated/api.ts';

type Problem = components['schemas']['Problem'];

/**
 * One invalid input named by the API in a validation problem: `field` (e.g. `theme`) and a `message` safe
 * to show next to it.
 */
export type ProblemFieldError = components['schemas']['ProblemFieldError'];

/**
 * An RFC 9457 problem document as the Atrium API sends it (`Problem` of its OpenAPI document), as the client
 * reads it: when the answer was not problem+json, `code` is `http_<status>` and there is no `detail`.
 */
export type ProblemDocument = Pick<Problem, 'type' | 'title' | 'status' | 'errors'> & {
  /** Stable machine-readable code from the API's error catalogue, e.g. `validation_failed`. */
  readonly code: Problem['code'] | `http_${number}`;
  readonly detail?: string;
};

/**
 * The API answered with an error status. Carries the parsed problem document; when the response was not
 * problem+json the fields are derived from the HTTP status (code `http_<status>`).
 */
export class ApiProblemError extends Error {
  override readonly name = 'ApiProblemError';
  /** HTTP status code. */
  readonly status: number;
  /** Stable error code from the API's catalogue (or `http_<status>`). */
  readonly code: ProblemDocument['code'];
  /** Short summary of the problem type. */
  readonly title: string;
  /** Explanation specific to this occurrence, when the API gave one. */
  readonly detail: string | undefined;
  /** Problem type URI (`about:blank` when absent). */
  readonly type: string;
  /** Per-field validation messages, when the problem is about invalid input. */
  readonly errors: readonly ProblemFieldError[] | undefined;

  constructor(problem: ProblemDocument) {
    super(problem.detail ?? problem.title);
    this.status = problem.status;
    this.code = problem.code;
    this.title = problem.title;
    this.detail = problem.detail;
    this.type = problem.type;
    this.errors = problem.errors;
  }

  /** The message for one field, if the API flagged it. */
  fieldError(field: string): string | undefined {
    return this.errors?.find((error) => error.field === field)?.message;
  }
}

/**
 * The request never got an HTTP answer: the API is down, unreachable, or blocked by CORS.
 */
export class ApiNetworkError extends Error {
  override readonly name = 'ApiNetworkError';
  /** The URL that could not be reached. */
  readonly url: string;

  constructor(url: string, options?: { cause?: unknown }) {
    super(`Could not reach ${new URL(url).origin}. Check your connection and try again.`, options);
    this.url = url;
  }
}

/**
 * The request was refused before it was sent: its absolute URL is not on the API's origin, and the client
 * only ever talks to (and sends the access token to) the API. Call other services with `fetch`.
 */
export class ApiForeignOriginError extends Error {
  override readonly name = 'ApiForeignOriginError';
  /** The refused URL. */
  readonly url: string;
  /** The only origin the client calls. */
  readonly apiOrigin: string;

  constructor(url: string, apiOrigin: string) {
    super(`Refused to call ${new URL(url).origin}: the API client only calls ${apiOrigin}.`);
    this.url = url;
    this.apiOrigin = apiOrigin;
  }
}

/**
 * The request was refused before it was sent: the route is the shell's own (its field telemetry, dev overrides,
 * the person's permission at Keycloak), which the client a remote gets does not call.
 */
export class ApiRouteRefusedError extends Error {
  override readonly name = 'ApiRouteRefusedError';
  /** The URL that was not called. */
  readonly url: string;

  constructor(url: string, reason: string) {
    super(`Refused to call ${new URL(url).pathname}: ${reason}`);
    this.url = url;
  }
}

/**
 * The request was refused before it was sent: the shell did not supply both a `DPoP` access token and a
 * proof for it. Tokens are only ever sent bound to the browser's key, never as plain bearer tokens.
 */
export class ApiAuthorizationError extends Error {
  override readonly name = 'ApiAuthorizationError';
  /** The URL that was not called. */
  readonly url: string;

  constructor(url: string) {
    super(`Refused to call ${url}: the request could not be authorised with a proof-of-possession token.`);
    this.url = url;
  }
}
