// The harness build's stand-in for the shell's remote-loading/catalogue/remotes-list.ts (./build.ts puts it in
// that module's place): the routes of a shell with its feature compiled in are known when it is built, so there
// is no list to ask the registry for.
import { LOCAL_REMOTE, type LocalRemote } from './local-remote.ts';

export class RemotesListError extends Error {
  override readonly name = 'RemotesListError';
}

export function getRemotes(): Promise<readonly LocalRemote[]> {
  return Promise.resolve([LOCAL_REMOTE]);
}

/** A remembered list is never read back: the build's one feature needs no release checked ahead. */
export function parseRemotes(): readonly LocalRemote[] {
  return [];
}

/** Nothing starts loading ahead: the harness's loader (./remote-loader.ts) loads the chunk when the slot asks. */
export function routedRemote(): undefined {
  return undefined;
}
