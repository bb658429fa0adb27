import type { RemoteDescriptor } from '@atrium/sdk';

/** Typed failure to fetch or validate the remotes list, rendered by the shell as an error state. */
export class RemotesListError extends Error {
  override readonly name = 'RemotesListError';
}

export async function getRemotes(
  remotesUrl: string,
  fetchImpl: typeof fetch = fetch,
): Promise<RemoteDescriptor[]> {
  let response: Response;
  try {
    response = await fetchImpl(remotesUrl, { cache: 'no-store' });
  } catch (error) {
    throw new RemotesListError(`Could not download the list of features from ${remotesUrl}.`, {
      cause: error,
    });
  }
  if (!response.ok) {
    throw new RemotesListError(`The list of features (${remotesUrl}) answered HTTP ${response.status}.`);
  }
  let raw: unknown;
  try {
    raw = await response.json();
  } catch (error) {
    throw new RemotesListError(`The list of features (${remotesUrl}) is not valid JSON.`, { cause: error });
  }
  return parseRemotes(raw, remotesUrl);
}

const NAME = /^[a-z][a-z0-9_]*$/;

export function parseRemotes(raw: unknown, source: string): RemoteDescriptor[] {
  if (!Array.isArray(raw))
    throw new RemotesListError(`The list of features (${source}) must be a JSON array.`);
  const problems: string[] = [];
  const remotes = raw.flatMap((item: unknown, index): RemoteDescriptor[] => {
    const entry = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    const { name, title, path, entry: url } = entry;
    const bad: string[] = [];
    if (typeof name !== 'string' || !NAME.test(name)) bad.push('name');
    if (typeof title !== 'string' || title.trim() === '') bad.push('title');
    if (typeof path !== 'string' || !/^\/[^/]/.test(path)) bad.push('path');
    if (typeof url !== 'string' || !URL.canParse(url)) bad.push('entry');
    if (bad.length > 0) {
      problems.push(`item ${index}: ${bad.join(', ')}`);
      return [];
    }
    return [{ name, title, path: (path as string).replace(/\/+$/, ''), entry: url } as RemoteDescriptor];
  });
  if (problems.length > 0) {
    throw new RemotesListError(`The list of features (${source}) has invalid items: ${problems.join('; ')}.`);
  }
  return remotes;
}
