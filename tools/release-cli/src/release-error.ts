/** A release step failed; the message says what happened and what to do, and is shown as is. */
export class ReleaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReleaseError';
  }
}

/**
 * How the release CLIs end on an error: a ReleaseError's message as is, a bad command line (parseArgs' TypeError)
 * with the usage, anything else as unexpected; exit code 1.
 */
export function exitOnCliError(tag: string, error: unknown, usage: string): never {
  if (error instanceof ReleaseError || (error instanceof TypeError && 'code' in error)) {
    console.error(`[${tag}] failed: ${error.message}`);
    if (!(error instanceof ReleaseError)) console.error(usage);
  } else {
    console.error(`[${tag}] failed unexpectedly:`, error);
  }
  process.exit(1);
}
