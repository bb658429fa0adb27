import type { RemoteDescriptor } from '@atrium/sdk';

/**
 * Why a remote's Feature did not load:
 * - `timeout`: it took longer than the shell waits;
 * - `download`: a file could not be fetched (network, HTTP error, or refused by the browser's integrity check);
 * - `refused`: the shell refused to run it (its release does not match what the registry recorded, or it asks
 *   to be loaded in a way the shell does not allow);
 * - `invalid`: it loaded but exports no Feature component;
 * - `withdrawn`: the registry no longer serves the release the page holds (withdrawn, or a canary rolled back).
 */
export type RemoteLoadFailure = 'timeout' | 'download' | 'refused' | 'invalid' | 'withdrawn';

/** Typed failure to load a remote's exposed module, rendered by the remote slot. */
export class RemoteLoadError extends Error {
  override readonly name = 'RemoteLoadError';
  constructor(
    readonly remote: RemoteDescriptor,
    readonly reason: RemoteLoadFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The federation runtime was asked to load remote code some way other than the verified one (another entry,
 * an ES module, a manifest of its own, a preload). Thrown by the runtime plugin, which knows only the remote's
 * name; the slot's loader turns it into a {@link RemoteLoadError}.
 */
export class RemoteRefusedError extends Error {
  override readonly name = 'RemoteRefusedError';
  constructor(
    readonly remoteName: string | undefined,
    /** Why, as the end of a sentence ("… was refused: <reason>."). */
    readonly reason: string,
  ) {
    super(`${remoteName === undefined ? 'Remote code' : `Remote "${remoteName}"`} was refused: ${reason}.`);
  }
}
