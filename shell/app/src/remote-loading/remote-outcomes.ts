/*
 * The one channel from the remote slots to field telemetry, apart from both: the slot's entry point
 * (./field-telemetry-entry.ts) writes to it, the telemetry chunk (./field-telemetry.ts) reads it.
 */

/** What happened to a remote in its slot; `failed` comes with why (a RemoteLoadError reason, or `render`). */
export type RemoteEvent = 'load' | 'loaded' | 'rendered' | 'failed';

/** One thing that happened to a remote version in its slot, at `at` ms on the page's clock. */
export interface RemoteOutcome {
  readonly remote: string;
  readonly version: string;
  readonly event: RemoteEvent;
  readonly kind?: string | undefined;
  readonly at: number;
}

/** The most outcomes kept for the telemetry chunk before it is loaded (a page's worth; older ones go first). */
const MAX_BUFFERED = 200;

/**
 * The one channel from the remote slots to field telemetry. It is not on the page's global objects and holds no
 * shared timeline: only the shell's own slot code reaches it, so a remote's code cannot report another
 * remote's load or failure (a performance mark it writes, for instance, is never read as an outcome). Outcomes
 * recorded before the telemetry chunk listens are kept for it.
 */
function createOutcomeChannel() {
  let buffered: RemoteOutcome[] = [];
  let listener: ((outcome: RemoteOutcome) => void) | undefined;
  return {
    record(outcome: RemoteOutcome): void {
      if (listener) {
        listener(outcome);
        return;
      }
      buffered.push(outcome);
      if (buffered.length > MAX_BUFFERED) buffered.shift();
    },
    /** Hands what was buffered to `next`, then every later outcome; one listener at a time. */
    listen(next: (outcome: RemoteOutcome) => void): () => void {
      const earlier = buffered;
      buffered = [];
      listener = next;
      for (const outcome of earlier) next(outcome);
      return () => {
        if (listener === next) listener = undefined;
      };
    },
  };
}

/** Where the slots' outcomes go: written by the slot's markRemote only, read by field-telemetry.ts only. */
export const remoteOutcomes = createOutcomeChannel();
