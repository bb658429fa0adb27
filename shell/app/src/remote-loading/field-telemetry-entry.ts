import type { ApiClient, RemoteDescriptor } from '@atrium/sdk';

/*
 * All of field telemetry that the shell's initial JavaScript carries: the remote slot's performance marks and
 * the import of the telemetry chunk (field-telemetry.ts with web-vitals), which the slot fetches once a remote
 * has loaded or failed. `npm run budget` builds the shell without this module to tell what it costs
 * (telemetry_initial_js_kb).
 */

/** What happened to a remote in its slot; `failed` comes with why (a RemoteLoadError reason, or `render`). */
export type RemoteEvent = 'load' | 'loaded' | 'rendered' | 'failed';

/**
 * Field telemetry's record of a remote: a performance mark `atrium:remote-<event>:<remote>` naming the version
 * (detail `[version, why]`). The reporter reads them, earlier ones included, and takes times from their order.
 */
export function markRemote(remote: RemoteDescriptor, event: RemoteEvent, kind?: string): void {
  performance.mark(`atrium:remote-${event}:${remote.name}`, { detail: [remote.version, kind] });
}

/** Fetches the telemetry chunk and starts field telemetry (once per page) with the shell's API client. */
export async function startFieldTelemetryLater(api: ApiClient | undefined): Promise<void> {
  const { startFieldTelemetry } = await import('./field-telemetry');
  startFieldTelemetry(api);
}
