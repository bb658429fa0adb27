// What `npm run compat` checks: whether a shell build can replace the deployed one without breaking a live
// release. The rule is the API's own shared-dependency gate (`@atrium/api/shared-dependencies`,
// docs/adr/0013-shared-dependency-gate.md), applied to every live release against the new shell.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import {
  type LiveBuild,
  type SharedDependencyConflict,
  sharedDependenciesOf,
  sharedDependencyConflicts,
} from '@atrium/api/shared-dependencies';
import type { components } from '@atrium/sdk/api-types';

type Schemas = components['schemas'];

/** A release on people's pages: a remote's active version, or its running canary. */
export interface LiveRelease {
  readonly remote: string;
  readonly version: string;
  readonly as: 'active' | 'canary';
  /** What its manifest shares; null: published without its manifest, so unknown. */
  readonly shared: Schemas['VersionDoc']['shared'];
}

/** The shell build's `mf-manifest.json` (`dir` is the build folder or the file itself) as the gate reads it. */
export function readShellBuild(dir: string): LiveBuild {
  const file = existsSync(dir) && statSync(dir).isDirectory() ? join(dir, 'mf-manifest.json') : dir;
  if (!existsSync(file)) {
    throw new Error(
      `${file} does not exist: build the shell first (npm run build -w shell/app), or pass --shell.`,
    );
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    throw new Error(`${file} is not JSON: is it the shell's mf-manifest.json?`);
  }
  const read = sharedDependenciesOf(manifest);
  if ('problem' in read) throw new Error(`${file}: the manifest ${read.problem}.`);
  return { label: 'the new shell', shared: read.dependencies };
}

/**
 * The live releases of the registry's remotes (`GET /api/admin/remotes`) given the canaries that run (remote →
 * version, from `GET /api/remotes/{name}/rollout`).
 */
export function liveReleasesOf(
  remotes: Schemas['AdminRemoteList']['remotes'],
  canaries: ReadonlyMap<string, string>,
): LiveRelease[] {
  return remotes.flatMap((remote) =>
    remote.versions.flatMap((version): LiveRelease[] => {
      const as = version.active ? 'active' : canaries.get(remote.name) === version.version ? 'canary' : null;
      return as ? [{ remote: remote.name, version: version.version, as, shared: version.shared }] : [];
    }),
  );
}

/** What the new shell would break: one line per live release, and how many releases would break. */
export function shellCompatibility(
  shell: LiveBuild,
  live: readonly LiveRelease[],
): { lines: string[]; breaking: number } {
  const lines: string[] = [];
  let breaking = 0;
  for (const release of live) {
    const label = `${release.remote} ${release.version}`;
    const named = `${label} (${release.as})`;
    if (release.shared === null) {
      lines.push(`${named}: not checked, it was published without its manifest`);
      continue;
    }
    const conflicts = sharedDependencyConflicts(
      { label, remote: release.remote, shared: release.shared },
      shell,
      [],
    );
    if (conflicts.length === 0) {
      lines.push(`${named}: ok`);
      continue;
    }
    breaking += 1;
    lines.push(`${named}: would break: ${conflicts.map(describe).join('; ')}`);
  }
  return { lines, breaking };
}

function describe(conflict: SharedDependencyConflict): string {
  return (
    `${conflict.requiredBy} needs ${conflict.package} ${conflict.required}, and ${conflict.providedBy} ` +
    `provides ${conflict.provided ?? 'none'}`
  );
}
