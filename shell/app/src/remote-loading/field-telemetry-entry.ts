import type { ApiClient, RemoteDescriptor } from '@atrium/sdk';

/*
 * All of field telemetry that the shell's initial JavaScript carries: what the remote slot tells it, and the
 * import of the telemetry chunk (field-telemetry.ts with web-vitals), which the slot fetches once a remote
 * has loaded or failed. `npm run budget` builds the shell without this module to tell what it costs
 * (telemetry_initial_js_kb).
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

/** Where the slots' outcomes go: read by field-telemetry.ts only. */
export const remoteOutcomes = createOutcomeChannel();

/**
 * Records what happened to a remote in its slot: for field telemetry through {@link remoteOutcomes}, and as a
 * performance mark `atrium:remote-<event>:<remote>` (detail `[version, why]`) for measuring in the browser's
 * tools, the shell bench and the browser journeys. The marks are output only: telemetry never reads them.
 */
export function markRemote(remote: RemoteDescriptor, event: RemoteEvent, kind?: string): void {
  const mark = performance.mark(`atrium:remote-${event}:${remote.name}`, { detail: [remote.version, kind] });
  remoteOutcomes.record({ remote: remote.name, version: remote.version, event, kind, at: mark.startTime });
}

/** Fetches the telemetry chunk and starts field telemetry (once per page) with the shell's API client. */
export async function startFieldTelemetryLater(api: ApiClient | undefined): Promise<void> {
  const { startFieldTelemetry } = await import('./field-telemetry');
  startFieldTelemetry(api);
}
