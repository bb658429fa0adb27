import {
  ApiAuthorizationError,
  ApiForeignOriginError,
  ApiNetworkError,
  ApiProblemError,
  ApiRouteRefusedError,
} from '@atrium/sdk';
import { describeProblem, sentence } from '@atrium/sdk/problem-sentences';

/**
 * The sentence a person reads when a call to the Atrium API failed: what went wrong and, where there is one,
 * what to do about it. Pass what failed as `failed` ("Preferences were not saved") to lead with it.
 *
 * - problem+json answers: the sentence of the problem's code (`@atrium/sdk/problem-sentences`), with the
 *   problem's detail (or title) and invalid fields where it has them;
 * - no answer at all ({@link ApiNetworkError}): the API is unreachable, check the connection and retry;
 * - a request the sdk refused to send: why, and that reloading signs in again.
 *
 * ```ts
 * describeApiError(error, 'Your account could not be loaded');
 * // "Your account could not be loaded. The Atrium API could not be reached. Check your connection, …"
 * ```
 */
export function describeApiError(error: unknown, failed?: string): string {
  const reason = reasonOf(error);
  return failed === undefined ? reason : `${sentence(failed)} ${reason}`;
}

function reasonOf(error: unknown): string {
  if (error instanceof ApiNetworkError) {
    return 'The Atrium API could not be reached. Check your connection (or that the API is running), then try again.';
  }
  if (error instanceof ApiProblemError) return describeProblem(error);
  if (error instanceof ApiAuthorizationError) {
    return 'Your sign-in could not be confirmed for this request. Reload the page to sign in again.';
  }
  if (error instanceof ApiForeignOriginError || error instanceof ApiRouteRefusedError) {
    return sentence(error.message);
  }
  if (error instanceof DOMException && error.name === 'AbortError') return 'The request was cancelled.';
  const message = error instanceof Error ? error.message : String(error);
  return `Something unexpected went wrong (${message}). Try again; if it keeps happening, reload the page.`;
}
