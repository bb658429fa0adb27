/**
 * The rules for where a dev override may load a remote from and which remote it may replace, applied by the API
 * (DEV_OVERRIDE_ORIGINS and its own configuration, `POST /api/dev-overrides`) and by the shell (its run-time
 * config's `devOverrides.allowedOrigins` and the registry's list, before it ever asks the API). Dependency-free on purpose: `npm run contract` copies this file into the sdk
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

/**
 * The platform's own origins, by what serves there (`{ 'the release store': ['https://releases.example'] }`):
 * the API and the shell read them from their own configuration. A dev override never loads from one of them,
 * whatever the allowed origins say (`http://localhost:*` matches the whole local stack): the release store holds
 * every release ever published, and a dev override would run any one of them unpinned, in the registry's place;
 * the API, Keycloak and the shell serve pages and answers, not a remote's dev build.
 */
export type PlatformOrigins = Readonly<Record<string, readonly string[]>>;

/** Why `url` must not be a dev override's source because it is on one of the platform's own origins. */
export function platformOriginProblem(url: string, platform: PlatformOrigins): string | undefined {
  if (!URL.canParse(url)) return undefined;
  const { origin } = new URL(url);
  const originOf = (candidate: string) => (URL.canParse(candidate) ? new URL(candidate).origin : undefined);
  const what = Object.keys(platform).find((name) =>
    platform[name]?.some((item) => originOf(item) === origin),
  );
  return what === undefined ? undefined : `${origin} is ${what}'s origin, which no dev override loads from`;
}

/**
 * Why a dev override must not replace the remote `name`, which requires `requiredRoles`: one only administrators
 * may see (its required roles include `adminRole`, the role module's) runs the admin console's powers, and a
 * developer who is also an administrator is the one person a forged link would aim at.
 */
export function overriddenRemoteProblem(
  name: string,
  requiredRoles: readonly string[],
  adminRole: string,
): string | undefined {
  return requiredRoles.includes(adminRole)
    ? `${name} is a remote only administrators may see, which no dev override replaces`
    : undefined;
}
