import { ApiNetworkError, ApiProblemError } from '@atrium/sdk';

/** A sentence for a failed account request: the API's problem detail, or what to check. */
export function describeAccountError(error: unknown, what: string): string {
  if (error instanceof ApiNetworkError)
    return `${what}: the Atrium API could not be reached. Retry in a moment.`;
  if (error instanceof ApiProblemError) return `${what}: ${error.detail ?? error.title}`;
  return `${what}.`;
}
