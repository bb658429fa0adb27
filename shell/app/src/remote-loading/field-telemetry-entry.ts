import type { ApiClient, RemoteDescriptor } from '@atrium/sdk';
import { remoteOutcomes, type RemoteEvent } from './remote-outcomes';

/*
 * All of field telemetry that the shell's initial JavaScript carries: what the remote slot tells it (through
 * ./remote-outcomes.ts), and the import of the telemetry chunk (field-telemetry.ts with web-vitals), which the
 * slot fetches once a remote has loaded or failed. `npm run budget` builds the shell without this module to tell
 * what it costs (telemetry_initial_js_kb).
 */

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
