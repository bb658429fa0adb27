/**
 * The bounds of a field-telemetry batch (`POST /api/telemetry`), which the API enforces and the shell's
 * reporter keeps to, so a batch is never refused for its size. Dependency-free on purpose: `npm run contract`
 * copies this file into the sdk (`@atrium/sdk/telemetry-rules`) and `npm test` fails when that copy is stale.
 */

/** The largest batch, in bytes of JSON: a page's worth of reports, never a backlog of days (413 beyond). */
export const TELEMETRY_BODY_LIMIT_BYTES = 16 * 1024;

/** At most this many remote versions in one batch. */
export const TELEMETRY_MAX_REPORTS = 20;

/** At most this many web-vitals samples per version. */
export const TELEMETRY_MAX_SAMPLES = 100;

/**
 * At most this many load attempts of one remote version in one report (loads that succeeded plus loads that
 * failed to download, to verify or in time): what one page can produce between two batches, a minute apart,
 * with a person pressing Retry. The shell stops counting beyond it; the API refuses a report that claims more.
 * A render failure or a render time belongs to a load that succeeded, so neither outnumbers the loads.
 */
export const TELEMETRY_MAX_ATTEMPTS = 20;
