/** A release step failed; the message says what happened and what to do, and is shown as is. */
export class ReleaseError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ReleaseError';
  }
}
