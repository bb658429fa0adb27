/**
 * The bounds of a field-telemetry batch (`POST /api/telemetry`), which the API enforces and the shell's
 * reporter keeps to, so a batch is never refused for its size. Dependency-free on purpose: `npm run contract`
 * copies this file into the sdk (`@atrium/sdk/telemetry-rules`) and `npm test` fails when that copy is stale.
 */

/** The largest batch, in bytes of JSON: a page's worth of reports, never a backlog of days (413 beyond). */
export const TELEMETRY_BODY_LIMIT_BYTES = 16 * 1024;

/** At most this many remote versions in one batch. */
export const TELEMETRY_MAX_REPORTS = 20;

/** At most this many samples of each kind per version: times, web vitals, and each failure count. */
export const TELEMETRY_MAX_SAMPLES = 100;
