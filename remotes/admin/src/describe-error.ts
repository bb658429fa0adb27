import { ApiNetworkError, ApiProblemError } from '@atrium/sdk';

/** One sentence for an API failure, shown next to the action that failed. */
export function describeError(action: string, error: unknown): string {
  if (error instanceof ApiNetworkError) return `${action}: the Atrium API could not be reached.`;
  if (error instanceof ApiProblemError) {
    return `${action}: ${error.detail ?? error.title} (HTTP ${error.status}).`;
  }
  return `${action}.`;
}
