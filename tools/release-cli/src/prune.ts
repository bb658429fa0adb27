import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeProblemToTool } from '@atrium/sdk/problem-sentences';
import { ApiProblemError, type ApiSchemas } from '@atrium/sdk/transport';
import { ReleaseError } from './release-error.ts';
import { callApi, getDeployerToken } from './registry-client.ts';
import type { RolloutDocument } from './rollout-client.ts';

/** How long a release is kept by default after it stops being needed (ATRIUM_RELEASE_RETENTION_HOURS). */
export const DEFAULT_RETENTION_HOURS = 168;

/** A release folder in the store: `<storeDir>/<remote>/<version>/`. */
export interface StoredRelease {
  readonly remote: string;
  readonly version: string;
  readonly dir: string;
  /** When the folder was written: the age of a release the registry does not know. */
  readonly writtenAt: Date;
}

/** What the registry says of one remote's versions: the active one, its canary, and each version's dates. */
export interface RegistryView {
  readonly active: string | null;
  readonly canary: string | null;
  readonly versions: ReadonlyMap<string, { readonly publishedAt: Date; readonly withdrawnAt: Date | null }>;
}

export interface PruneDecision {
  readonly release: StoredRelease;
  readonly remove: boolean;
  /** Why, in words for the operator. */
  readonly why: string;
}

/**
 * Which stored releases may go. A release stays while an open page may still need its files: while it is
 * active or a running canary's, and for `retentionMs` after it was published (or written, if the registry
 * never recorded it) and after it was withdrawn. Everything else goes.
 */
export function decidePrune(
  stored: readonly StoredRelease[],
  registry: ReadonlyMap<string, RegistryView>,
  now: Date,
  retentionMs: number,
): PruneDecision[] {
  const recent = (date: Date) => now.getTime() - date.getTime() < retentionMs;
  return stored.map((release) => {
    const remote = registry.get(release.remote);
    const decide = (remove: boolean, why: string) => ({ release, remove, why });
    if (remote?.active === release.version) return decide(false, 'active');
    if (remote?.canary === release.version) return decide(false, 'running canary');
    const recorded = remote?.versions.get(release.version);
    if (recorded?.withdrawnAt && recent(recorded.withdrawnAt)) {
      return decide(false, 'withdrawn within the retention time (open pages may still show why)');
    }
    if (recent(recorded?.publishedAt ?? release.writtenAt)) {
      return decide(
        false,
        recorded ? 'published within the retention time' : 'written within the retention time',
      );
    }
    if (!recorded) return decide(true, 'never registered, older than the retention time');
    return decide(true, recorded.withdrawnAt ? 'withdrawn, longer ago than the retention time' : 'inactive');
  });
}

/** Every release folder of the store (a folder being uploaded, `*.uploading-<pid>`, is not one yet). */
export function storedReleases(storeDir: string): StoredRelease[] {
  const folders = (dir: string) =>
    readdirSync(dir, { withFileTypes: true }).filter(
      (entry) => entry.isDirectory() && !entry.name.includes('.uploading-'),
    );
  let remotes;
  try {
    remotes = folders(storeDir);
  } catch {
    throw new ReleaseError(
      `The release store ${storeDir} cannot be read. Set ATRIUM_RELEASE_STORE_DIR to where releases are.`,
    );
  }
  return remotes.flatMap((remote) =>
    folders(join(storeDir, remote.name)).map((version) => {
      const dir = join(storeDir, remote.name, version.name);
      return { remote: remote.name, version: version.name, dir, writtenAt: statSync(dir).mtime };
    }),
  );
}

type AdminRemotes = ApiSchemas['schemas']['AdminRemoteList'];

/** The registry's view of every remote, read as the platform's client (an administrator). */
export async function readRegistry(options: {
  apiUrl: string;
  token: string;
}): Promise<Map<string, RegistryView>> {
  const { remotes } = await callApi<AdminRemotes>(
    options.apiUrl,
    '/api/admin/remotes',
    options.token,
    undefined,
    'GET',
  );
  const views = new Map<string, RegistryView>();
  for (const remote of remotes) {
    const { rollout } = await callApi<{ rollout: RolloutDocument | null }>(
      options.apiUrl,
      `/api/remotes/${encodeURIComponent(remote.name)}/rollout`,
      options.token,
      undefined,
      'GET',
    );
    views.set(remote.name, {
      active: remote.activeVersion,
      canary: rollout?.state === 'running' ? rollout.version : null,
      versions: new Map(
        remote.versions.map((version) => [
          version.version,
          {
            publishedAt: new Date(version.publishedAt),
            withdrawnAt: version.withdrawal ? new Date(version.withdrawal.at) : null,
          },
        ]),
      ),
    });
  }
  return views;
}

/**
 * `npm run release -- prune`: removes the releases {@link decidePrune} lets go from the store (none with
 * `dryRun`), as the platform's client, which may read every remote's versions and canary. Returns every
 * decision, kept releases included.
 */
export async function pruneReleases(options: {
  storeDir: string;
  apiUrl: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  retentionHours: number;
  dryRun: boolean;
  now?: Date;
}): Promise<PruneDecision[]> {
  const token = await getDeployerToken(options);
  let registry: Map<string, RegistryView>;
  try {
    registry = await readRegistry({ apiUrl: options.apiUrl, token });
  } catch (error) {
    if (!(error instanceof ApiProblemError)) throw error;
    throw new ReleaseError(
      `${describeProblemToTool(error, 'The registry could not be read')} Pruning reads every remote's versions ` +
        "and canary: run it with the platform's credentials (ATRIUM_PLATFORM_CLIENT_ID / ATRIUM_PLATFORM_SECRET).",
      { cause: error },
    );
  }
  const decisions = decidePrune(
    storedReleases(options.storeDir),
    registry,
    options.now ?? new Date(),
    options.retentionHours * 3_600_000,
  );
  if (!options.dryRun) {
    for (const { release, remove } of decisions) if (remove) rmSync(release.dir, { recursive: true });
  }
  return decisions;
}

/** ATRIUM_RELEASE_RETENTION_HOURS, checked: a whole number of hours, 0 or more. */
export function retentionHoursFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ATRIUM_RELEASE_RETENTION_HOURS;
  if (raw === undefined || raw === '') return DEFAULT_RETENTION_HOURS;
  if (!/^\d+$/.test(raw)) {
    throw new ReleaseError(`ATRIUM_RELEASE_RETENTION_HOURS must be a whole number of hours, not "${raw}".`);
  }
  return Number(raw);
}
