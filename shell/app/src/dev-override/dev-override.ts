import type { ApiClient, ApiSchemas, RemoteDescriptor } from '@atrium/sdk';
import {
  DEV_OVERRIDE_ORIGIN_PATTERN,
  DEV_SERVER_ENTRY_PATH,
  devOverrideOriginAllowed,
  overriddenRemoteProblem,
  type PlatformOrigins,
  platformOriginProblem,
} from '@atrium/sdk/dev-override-rules';
import { ADMIN_ROLE, DEVELOPER_ROLE } from '@atrium/sdk/role-names';
import { DEV_OVERRIDE_PARAM } from './dev-override-keys';

/**
 * Dev overrides: a developer's browser session loads a remote from a dev server (`npm run dev --workspace
 * remotes/<name>`) instead of the release the registry lists. An explicit exception to the shell's rule that
 * only registry-vouched, integrity-checked releases run, so it is allowed only
 * - where the run-time config turns it on (`devOverrides.allowedOrigins`; off in production unless configured),
 * - for a dev server on one of those origins that is none of the platform's own (the shell, the API, the identity
 *   provider, the release store),
 * - for a remote the registry lists to this person, unless only administrators may see it (the admin console),
 * - to people whose token carries {@link DEVELOPER_ROLE},
 * - once the person confirmed the dev server's origin, and the API approved the override for this sign-in session
 *   and recorded it in the audit log (`POST /api/dev-overrides`),
 * and only in this tab (sessionStorage), and at every load only if the API still approves it for the session the
 * tab is in (`GET /api/dev-overrides`): an override written into the tab's storage by anything else is ignored.
 * This module and the banner (dev-override-panel.tsx) are a chunk of their own that the shell loads only when
 * the tab has an override or its address asks for one.
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

/** What a dev override is checked against in this page. */
export interface DevOverrideContext {
  /** The signed-in person's realm roles. */
  readonly roles: readonly string[];
  readonly config: DevOverrideConfig | null;
  /** The platform's own origins ({@link platformOrigins}). */
  readonly platform: PlatformOrigins;
  /** The registry's list for this person, as the registry answered (no override applied). */
  readonly remotes: readonly RemoteDescriptor[];
}

/**
 * The platform's own origins as this shell knows them: its own, the API's and the identity provider's from the
 * run-time config, and the release store's from the registry's list. The API refuses the same by its own
 * configuration.
 */
export function platformOrigins(
  runtime: { readonly apiBaseUrl: string; readonly oidc: { readonly authority: string } },
  remotes: readonly RemoteDescriptor[],
): PlatformOrigins {
  return {
    'the shell': [window.location.origin],
    'the API': [runtime.apiBaseUrl],
    'the identity provider': [runtime.oidc.authority],
    'the release store': remotes.map((remote) => remote.entry),
  };
}

/** Why this override must not run for this person on this shell, or undefined. */
export function devOverrideProblem(override: DevOverride, context: DevOverrideContext): string | undefined {
  const { config, roles } = context;
  if (config === null) return 'dev overrides are off on this shell';
  if (!roles.includes(DEVELOPER_ROLE)) return `it needs the role ${DEVELOPER_ROLE}`;
  if (!URL.canParse(override.url)) return `${override.url} is not a URL`;
  const url = new URL(override.url);
  if (url.username || url.password || url.search || url.hash || !DEV_SERVER_ENTRY_PATH.test(url.pathname)) {
    return `${override.url} is not a dev server's mf-manifest.json or remoteEntry.js`;
  }
  // The API's rules (@atrium/sdk/dev-override-rules), which it applies again before it approves the override.
  const platform = platformOriginProblem(url.href, context.platform);
  if (platform !== undefined) return platform;
  if (!devOverrideOriginAllowed(url.href, config.allowedOrigins))
    return `${url.origin} is not an origin this shell allows (${config.allowedOrigins.join(', ')})`;
  const listed = context.remotes.find((remote) => remote.name === override.remote);
  if (listed === undefined) return `${override.remote} is not a feature the registry lists for you`;
  return overriddenRemoteProblem(listed.name, listed.requiredRoles, ADMIN_ROLE);
}

/** The dev server's remoteEntry.js, which the shell runs as the remote's container (beside its manifest). */
export function devEntryUrl(override: DevOverride): string {
  return new URL('remoteEntry.js', override.url).href;
}

/** The dev server's mf-manifest.json. */
function devManifestUrl(override: DevOverride): string {
  return new URL('mf-manifest.json', override.url).href;
}

/**
 * The folder of the dev server an override runs (its manifest's): its chunks and hot updates load from there, by
 * names no manifest lists, so the files of that folder are the remote's trusted script URLs (Trusted Types) while
 * the list points the remote there.
 */
export function devServerFolder(override: DevOverride): string {
  return new URL('./', devManifestUrl(override)).href;
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

/** A stored override that does not run, and why. */
export interface IgnoredDevOverride {
  readonly override: DevOverride;
  readonly reason: string;
}

/** Which of this tab's stored overrides run in this page, and which do not. */
export interface DevOverrideDecision {
  readonly active: readonly DevOverride[];
  readonly ignored: readonly IgnoredDevOverride[];
}

/**
 * Decides which stored overrides run: those that pass this page's checks ({@link devOverrideProblem}) and that
 * the API approves for the session this tab is in (`GET /api/dev-overrides`, asked only when one passes): the
 * same remote from exactly the same URL. When the API cannot be asked, none runs.
 */
export async function decideDevOverrides(
  context: DevOverrideContext,
  api: Pick<ApiClient, 'request'>,
): Promise<DevOverrideDecision> {
  const ignored: IgnoredDevOverride[] = [];
  const candidates = storedDevOverrides().filter((override) => {
    const reason = devOverrideProblem(override, context);
    if (reason !== undefined) ignored.push({ override, reason });
    return reason === undefined;
  });
  if (candidates.length === 0) return { active: [], ignored };
  let approved: ApiSchemas['schemas']['DevOverrideApprovals']['overrides'];
  try {
    ({ overrides: approved } = await api.request<ApiSchemas['schemas']['DevOverrideApprovals']>(
      'GET',
      '/api/dev-overrides',
    ));
  } catch {
    const reason = 'the API could not be asked whether this session approved it';
    return { active: [], ignored: [...ignored, ...candidates.map((override) => ({ override, reason }))] };
  }
  const active: DevOverride[] = [];
  for (const override of candidates) {
    if (approved.some(({ remote, url }) => remote === override.remote && url === override.url)) {
      active.push(override);
    } else {
      ignored.push({ override, reason: 'the API has not approved it for this sign-in session' });
    }
  }
  return { active, ignored };
}

/**
 * The registry's list with each active override's remote pointing at its dev server, before any remote loads. A
 * dev build changes at every save, so the registry cannot vouch for it: the shell hashes the dev server's
 * manifest and remoteEntry.js as it fetches them now, and the loader then runs them through its usual
 * integrity-checked path (the script runs only with the bytes hashed here, fetched into the browser's cache the
 * way the script tag requests them). Nothing is fetched from a dev server before the override was decided active.
 */
export async function applyDevOverrides(
  active: readonly DevOverride[],
  remotes: readonly RemoteDescriptor[],
): Promise<RemoteDescriptor[]> {
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

/** Takes `override` (exactly that remote and URL) out of this tab's store. */
export function forgetDevOverride(override: DevOverride): void {
  const others = storedDevOverrides().filter(
    (stored) => stored.remote !== override.remote || stored.url !== override.url,
  );
  window.sessionStorage.setItem(DEV_OVERRIDE_PARAM, JSON.stringify(others));
}

export function clearDevOverrides(): void {
  window.sessionStorage.removeItem(DEV_OVERRIDE_PARAM);
}
