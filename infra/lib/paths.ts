// Where things are, for the dev and test stack and the tooling: the one place that knows how deep infra/ sits.
import { join, resolve } from 'node:path';

/** The checkout's root folder (the one with the root package.json), wherever the clone is. */
export const repoRoot = resolve(import.meta.dirname, '../..');

/** A path below the repo root, e.g. `fromRoot('shell/app/dist')`. */
export function fromRoot(...segments: string[]): string {
  return join(repoRoot, ...segments);
}

/** Local state of the dev stack (databases, Keycloak, mails, releases): `.data/` under the root, git-ignored. */
export const dataDir = fromRoot('.data');
