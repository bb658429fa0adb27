import type { ApiSchemas, RemoteDescriptor } from '@atrium/sdk';
import {
  DEV_OVERRIDE_ORIGIN_PATTERN,
  DEV_SERVER_ENTRY_PATH,
  devOverrideOriginAllowed,
} from '@atrium/sdk/dev-override-rules';
import { DEVELOPER_ROLE } from '@atrium/sdk/role-names';
import { DEV_OVERRIDE_PARAM } from './dev-override-keys';

/**
 * Dev overrides: a developer's browser session loads a remote from a dev server (`npm run dev --workspace
 * remotes/<name>`) instead of the release the registry lists. An explicit exception to the shell's rule that
 * only registry-vouched, integrity-checked releases run, so it is allowed only
 * - where the run-time config turns it on (`devOverrides.allowedOrigins`; off in production unless configured),
 * - for a dev server on one of those origins,
 * - to people whose token carries {@link DEVELOPER_ROLE},
 * - after the API allowed and audited it (`POST /api/dev-overrides`),
 * and only for this tab's session (sessionStorage). This module and the banner (dev-override-panel.tsx) are a
 * chunk of their own that the shell loads only when the tab has an override or its address asks for one.
 */

/**
 * One remote loaded from a dev server in this session (`url`: the dev server's mf-manifest.json or
 * remoteEntry.js), as `POST /api/dev-overrides` takes it (`DevOverride` of the API's document).
 */
export type DevOverride = ApiSchemas['schemas']['DevOverride'];

/** Dev overrides as the run-time config turns them on (`devOverrides`); null when off or misconfigured. */
export interface DevOverrideConfig {
  readonly allowedOrigins: readonly string[];
}

/** Reads `devOverrides` of the run-time config: null (off) unless it lists valid origin patterns. */
export function devOverrideConfig(raw: unknown): DevOverrideConfig | null {
  const origins = (raw as { allowedOrigins?: unknown } | null | undefined)?.allowedOrigins;
  return Array.isArray(origins) &&
    origins.length > 0 &&
    origins.every((origin) => typeof origin === 'string' && DEV_OVERRIDE_ORIGIN_PATTERN.test(origin))
    ? { allowedOrigins: origins as string[] }
    : null;
}

/** Why this override must not run for this person on this shell, or undefined. */
export function devOverrideProblem(
  override: DevOverride,
  roles: readonly string[],
  config: DevOverrideConfig | null,
): string | undefined {
  if (config === null) return 'dev overrides are off on this shell';
  if (!roles.includes(DEVELOPER_ROLE)) return `it needs the role ${DEVELOPER_ROLE}`;
  if (!URL.canParse(override.url)) return `${override.url} is not a URL`;
  const url = new URL(override.url);
  if (url.username || url.password || url.search || url.hash || !DEV_SERVER_ENTRY_PATH.test(url.pathname)) {
    return `${override.url} is not a dev server's mf-manifest.json or remoteEntry.js`;
  }
  // The API's rule (@atrium/sdk/dev-override-rules), which it applies again before it allows the override.
  if (!devOverrideOriginAllowed(url.href, config.allowedOrigins))
    return `${url.origin} is not an origin this shell allows (${config.allowedOrigins.join(', ')})`;
  return undefined;
}

/** The dev server's remoteEntry.js, which the shell runs as the remote's container (beside its manifest). */
export function devEntryUrl(override: DevOverride): string {
  return new URL('remoteEntry.js', override.url).href;
}

/** The dev server's mf-manifest.json. */
function devManifestUrl(override: DevOverride): string {
  return new URL('mf-manifest.json', override.url).href;
}

/** The override the page's address asks for, if any (the dev server prints this address). */
export function requestedDevOverride(search: string): DevOverride | null {
  const value = new URLSearchParams(search).get(DEV_OVERRIDE_PARAM);
  const at = value?.indexOf('@') ?? -1;
  if (value == null || at <= 0) return null;
  return { remote: value.slice(0, at), url: value.slice(at + 1) };
}

/** The overrides stored in this tab's session, as stored (not yet checked). */
export function storedDevOverrides(): DevOverride[] {
  try {
    const parsed: unknown = JSON.parse(window.sessionStorage.getItem(DEV_OVERRIDE_PARAM) ?? '[]');
    return Array.isArray(parsed)
      ? parsed.filter(
          (item): item is DevOverride =>
            typeof (item as DevOverride)?.remote === 'string' &&
            typeof (item as DevOverride)?.url === 'string',
        )
      : [];
  } catch {
    return [];
  }
}

/** The stored overrides that may run for this person on this shell; the others are ignored. */
export function activeDevOverrides(
  roles: readonly string[],
  config: DevOverrideConfig | null,
): DevOverride[] {
  return storedDevOverrides().filter((override) => devOverrideProblem(override, roles, config) === undefined);
}

/**
 * The registry's list with each active override's remote pointing at its dev server, before any remote loads
 * (`rawConfig` is `devOverrides` of the run-time config). A dev build changes at every save, so the registry
 * cannot vouch for it: the shell hashes the dev server's manifest and remoteEntry.js as it fetches them now, and
 * the loader then runs them through its usual integrity-checked path (the script runs only with the bytes hashed
 * here, fetched into the browser's cache the way the script tag requests them).
 */
export async function applyDevOverrides(
  roles: readonly string[],
  rawConfig: unknown,
  remotes: readonly RemoteDescriptor[],
): Promise<RemoteDescriptor[]> {
  const active = activeDevOverrides(roles, devOverrideConfig(rawConfig));
  return Promise.all(
    remotes.map(async (remote) => {
      const override = active.find((candidate) => candidate.remote === remote.name);
      if (override === undefined) return remote;
      const [manifestIntegrity, integrity] = await Promise.all([
        sha384Of(devManifestUrl(override), 'omit'),
        sha384Of(devEntryUrl(override), 'same-origin'),
      ]);
      return { ...remote, entry: devManifestUrl(override), integrity, manifestIntegrity };
    }),
  );
}

/** SRI sha384 of a file as fetched now (a dev server that does not answer leaves the slot to report it). */
async function sha384Of(url: string, credentials: RequestCredentials): Promise<string> {
  try {
    const response = await fetch(url, { mode: 'cors', credentials, cache: 'reload' });
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-384', await response.arrayBuffer()));
    return `sha384-${btoa(String.fromCharCode(...digest))}`;
  } catch {
    return 'sha384-unreachable';
  }
}

export function storeDevOverride(override: DevOverride): void {
  const others = storedDevOverrides().filter((stored) => stored.remote !== override.remote);
  window.sessionStorage.setItem(DEV_OVERRIDE_PARAM, JSON.stringify([...others, override]));
}

export function clearDevOverrides(): void {
  window.sessionStorage.removeItem(DEV_OVERRIDE_PARAM);
}
