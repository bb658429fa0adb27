/**
 * The one rule for where a dev override may load a remote from, applied by the API (DEV_OVERRIDE_ORIGINS,
 * `POST /api/dev-overrides`) and by the shell (its run-time config's `devOverrides.allowedOrigins`, before it
 * ever asks the API). Dependency-free on purpose: `npm run contract` copies this file into the sdk
 * (`@atrium/sdk/dev-override-rules`) and `npm test` fails when that copy is stale.
 */

/**
 * An allowed origin: `scheme://host:port`, or `scheme://host:*` for any port of that host (e.g.
 * `http://localhost:*`).
 */
export const DEV_OVERRIDE_ORIGIN_PATTERN = /^(https?):\/\/([a-z0-9.-]+|\[[0-9a-f:]+\])(?::(\d{1,5}|\*))?$/;

/** Whether `url` is an http(s) URL on an origin one of `patterns` allows. */
export function devOverrideOriginAllowed(url: string, patterns: readonly string[]): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname, origin } = new URL(url);
  return patterns.some((pattern) => {
    const match = DEV_OVERRIDE_ORIGIN_PATTERN.exec(pattern);
    if (!match) return false;
    const [, scheme, host, allowedPort] = match;
    if (allowedPort !== '*') return origin === new URL(pattern).origin;
    return protocol === `${scheme}:` && hostname === host;
  });
}

/** The file a dev override names: a dev server's remoteEntry.js or mf-manifest.json (the URL's path). */
export const DEV_SERVER_ENTRY_PATH = /\/(?:remoteEntry\.js|mf-manifest\.json)$/;
