import {
  ApiAuthorizationError,
  ApiForeignOriginError,
  ApiNetworkError,
  ApiProblemError,
  ApiRouteRefusedError,
} from '@atrium/sdk';

/**
 * The sentence a person reads when a call to the Atrium API failed: what went wrong and, where there is one,
 * what to do about it. Pass what failed as `failed` ("Preferences were not saved") to lead with it.
 *
 * - problem+json answers: the problem's detail (or title), the invalid fields, and for 401/403/5xx the fix;
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
  if (error instanceof ApiProblemError) return problemReason(error);
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

function problemReason(problem: ApiProblemError): string {
  const said = sentence(problem.detail ?? problem.title);
  const fields = problem.errors?.length
    ? ` ${sentence(problem.errors.map(({ field, message }) => `${field} ${message}`).join('; '))}`
    : '';
  if (problem.status === 401) {
    return 'Your session has ended. Reload the page to sign in again.';
  }
  if (problem.status === 403) {
    return `You are not allowed to do this. ${said} Ask an administrator for the role it needs.`;
  }
  if (problem.status === 429) return `${said} Wait a moment, then try again.`;
  if (problem.status >= 500) {
    return (
      `The Atrium API failed to answer (HTTP ${problem.status}). Try again in a moment; ` +
      'if it keeps failing, tell the team that runs Atrium.'
    );
  }
  return `${said}${fields}`;
}

/** The text as a sentence: first letter up, ending with a full stop unless it already ends a sentence. */
function sentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
