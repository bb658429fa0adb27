import { remoteNameProblem, type ApiClient, type RemoteDescriptor } from '@atrium/sdk';
import { ADMIN_ROLE } from '@atrium/sdk/role-names';
import { describeApiError } from '@atrium/sdk/ui';

/** The remote whose route `pathname` is in, if any. */
export function routedRemote<T extends Pick<RemoteDescriptor, 'path'>>(
  remotes: readonly T[],
  pathname: string,
): T | undefined {
  return remotes.find(({ path }) => pathname === path || pathname.startsWith(`${path}/`));
}

/** Typed failure to fetch the remotes list, rendered by the shell as an error state. */
export class RemotesListError extends Error {
  override readonly name = 'RemotesListError';
}

/**
 * Asks the registry which remotes the signed-in person may use. The API filters by role, so a remote the
 * person may not use is never listed and never downloaded.
 */
export async function getRemotes(
  api: Pick<ApiClient, 'get'>,
  remotesUrl: string,
  signal?: AbortSignal,
): Promise<RemoteDescriptor[]> {
  let raw: unknown;
  try {
    raw = await api.get<unknown>(remotesUrl, signal ? { signal } : {});
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new RemotesListError(describeApiError(error), { cause: error });
  }
  return parseRemotes(raw, remotesUrl);
}

/**
 * Validates the registry's answer. A malformed item is left out (and logged) rather than failing the
 * list: one bad registration must not hide every other feature.
 */
export function parseRemotes(raw: unknown, source: string): RemoteDescriptor[] {
  const items = typeof raw === 'object' && raw !== null ? (raw as { remotes?: unknown }).remotes : undefined;
  if (!Array.isArray(items)) {
    throw new RemotesListError(`The list of features (${source}) has no "remotes" array.`);
  }
  const remotes = items.flatMap((item: unknown, index): RemoteDescriptor[] => {
    const entry = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const {
      name,
      title,
      path,
      navOrder,
      version,
      entry: url,
      integrity,
      manifestIntegrity,
      requiredRoles,
    } = entry;
    const bad: string[] = [];
    // The one rule the registry and the build apply (a container name that is a JavaScript identifier).
    const nameProblem = remoteNameProblem(name);
    if (nameProblem) bad.push(`name (${nameProblem})`);
    if (typeof title !== 'string' || title.trim() === '') bad.push('title');
    if (typeof path !== 'string' || !/^\/[^/]/.test(path)) bad.push('path');
    if (typeof version !== 'string' || version === '') bad.push('version');
    if (typeof url !== 'string' || !URL.canParse(url)) bad.push('entry');
    if (bad.length > 0) {
      console.warn(`Ignoring item ${index} of ${source}: invalid ${bad.join(', ')}`);
      return [];
    }
    return [
      {
        name: name as string,
        title: title as string,
        path: (path as string).replace(/\/+$/, ''),
        navOrder: typeof navOrder === 'number' ? navOrder : 0,
        version: version as string,
        entry: url as string,
        // A missing hash keeps the item listed: its slot then says that the registry did not vouch for it
        // (the loader refuses an empty hash), instead of the feature silently disappearing.
        integrity: typeof integrity === 'string' ? integrity : '',
        manifestIntegrity: typeof manifestIntegrity === 'string' ? manifestIntegrity : '',
        // What the shell's own rules read (a dev override never replaces a remote only administrators see):
        // missing or malformed, the remote counts as one only administrators may see.
        requiredRoles:
          Array.isArray(requiredRoles) && requiredRoles.every((role) => typeof role === 'string')
            ? requiredRoles
            : [ADMIN_ROLE],
      },
    ];
  });
  return remotes.sort((a, b) => a.navOrder - b.navOrder || a.title.localeCompare(b.title));
}
