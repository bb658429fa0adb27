/**
 * The origins a dev override may load a remote from: `scheme://host:port`, or `scheme://host:*` for any port of
 * that host (e.g. `http://localhost:*`). The API's half of the rule; the shell applies the same patterns from
 * its run-time config (shell/app/src/dev-override/dev-override.ts) before it ever asks the API.
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
