import semver from 'semver';

// Which shared packages a Module Federation build declares, and whether a release can run on the same page as
// the shell and the other live releases (docs/adr/0013-shared-dependency-gate.md). Pure, and importing only
// `semver`: the API's gate and `npm run compat` (infra/compat, as `@atrium/api/shared-dependencies`) apply it.

/** One package a build shares with the page, as its `mf-manifest.json` declares it under `shared`. */
export interface SharedDependency {
  /** The package, e.g. `react`. */
  readonly name: string;
  /** The share scope. Module Federation's manifest names none, so `default`, the one every Atrium build uses. */
  readonly shareScope: string;
  /** Whether the page may hold only one copy of it. */
  readonly singleton: boolean;
  /** The versions the build accepts, a semver range; null: any. */
  readonly requiredVersion: string | null;
  /**
   * The version of the copy the build brings (its manifest lists that copy's files); null: it brings none and
   * uses one another build provides (`import: false`, as Atrium's remotes do for the shell's singletons).
   */
  readonly providedVersion: string | null;
}

/** The most packages one manifest may share, and the longest name and range it may give (npm's limit). */
const MAX_SHARED = 200;
const MAX_TEXT = 214;

/**
 * The shared packages a parsed `mf-manifest.json` declares, or why they cannot be read (a sentence fragment,
 * e.g. `shared[1].requiredVersion "^x" is not a semver range`). A manifest without `shared` shares nothing.
 */
export function sharedDependenciesOf(
  manifest: unknown,
): { dependencies: SharedDependency[] } | { problem: string } {
  if (!isRecord(manifest)) return { problem: 'is not a JSON object' };
  const shared = manifest['shared'] ?? [];
  if (!Array.isArray(shared)) return { problem: '`shared` is not a list' };
  if (shared.length > MAX_SHARED) return { problem: `\`shared\` lists more than ${MAX_SHARED} packages` };
  const dependencies: SharedDependency[] = [];
  for (const [index, entry] of shared.entries()) {
    const at = `shared[${index}]`;
    if (!isRecord(entry)) return { problem: `${at} is not an object` };
    const { name, singleton, requiredVersion, version } = entry;
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_TEXT) {
      return { problem: `${at}.name must be a package name` };
    }
    const scope = entry['shareScope'] ?? 'default';
    if (typeof scope !== 'string' || scope.length === 0 || scope.length > MAX_TEXT) {
      return { problem: `${at}.shareScope must be a share scope's name` };
    }
    // Module Federation takes `false` (or no range) for "any version".
    let range: string | null = null;
    if (typeof requiredVersion === 'string') {
      if (requiredVersion.length > MAX_TEXT || semver.validRange(requiredVersion) === null) {
        return { problem: `${at}.requiredVersion "${requiredVersion.slice(0, 40)}" is not a semver range` };
      }
      if (requiredVersion.trim() !== '') range = requiredVersion;
    } else if (requiredVersion !== undefined && requiredVersion !== false) {
      return { problem: `${at}.requiredVersion must be a semver range` };
    }
    const bringsCopy = hasFiles(entry['assets']);
    dependencies.push({
      name,
      shareScope: scope,
      singleton: singleton === true,
      requiredVersion: range,
      providedVersion: bringsCopy && typeof version === 'string' ? semver.valid(version) : null,
    });
  }
  return { dependencies };
}

/** A build that is, or would be, on people's pages: the shell (`shell: true`) or a release of a remote. */
export interface LiveBuild {
  /** How a refusal names it: `the shell`, `profile 1.2.0`. */
  readonly label: string;
  /** The remote it is a release of; a remote's releases are never on one page together. */
  readonly remote?: string;
  readonly shared: readonly SharedDependency[];
}

/** A package the candidate and what is live cannot share: `requiredBy` would get `provided` outside `required`. */
export interface SharedDependencyConflict {
  readonly package: string;
  /** The range that is not met, and the build that declares it. */
  readonly required: string;
  readonly requiredBy: string;
  /** The version the page would give it, and who provides that copy; null: nothing provides one. */
  readonly provided: string | null;
  readonly providedBy: string;
}

/**
 * Why `candidate` cannot run beside `shell` (null: the shell's manifest is unknown, so nothing is checked
 * against it) and the other live releases `others`; empty when it can. In each share scope:
 *
 * - a package the candidate brings no copy of needs the shell's copy (the only one on every page) in its range;
 * - a singleton (so declared by anyone who shares it) has one copy per page, whoever brings it: the candidate
 *   needs every copy that others bring in its range, and the copy it brings must be in everyone else's.
 *
 * Ranges are compared as Module Federation compares them at run time, prereleases included.
 */
export function sharedDependencyConflicts(
  candidate: LiveBuild,
  shell: LiveBuild | null,
  others: readonly LiveBuild[],
): SharedDependencyConflict[] {
  const neighbours = [
    ...(shell ? [shell] : []),
    ...others.filter((other) => other.remote === undefined || other.remote !== candidate.remote),
  ];
  const conflicts: SharedDependencyConflict[] = [];
  const add = (conflict: SharedDependencyConflict) => {
    if (!conflicts.some((known) => JSON.stringify(known) === JSON.stringify(conflict)))
      conflicts.push(conflict);
  };
  for (const own of candidate.shared) {
    const sharing = neighbours.flatMap((build) =>
      build.shared
        .filter((other) => other.name === own.name && other.shareScope === own.shareScope)
        .map((dependency) => ({ build, dependency })),
    );
    const fromShell = shell?.shared.find(
      (other) => other.name === own.name && other.shareScope === own.shareScope && other.providedVersion,
    );
    if (shell && own.providedVersion === null) {
      if (!fromShell) {
        add({
          package: own.name,
          required: own.requiredVersion ?? '*',
          requiredBy: candidate.label,
          provided: null,
          providedBy: shell.label,
        });
      } else if (!accepts(own.requiredVersion, fromShell.providedVersion!)) {
        add(conflict(own, candidate, fromShell.providedVersion!, shell));
      }
    }
    const singleton = own.singleton || sharing.some(({ dependency }) => dependency.singleton);
    if (!singleton) continue;
    for (const { build, dependency } of sharing) {
      if (dependency.providedVersion && !accepts(own.requiredVersion, dependency.providedVersion)) {
        add(conflict(own, candidate, dependency.providedVersion, build));
      }
      if (own.providedVersion && !accepts(dependency.requiredVersion, own.providedVersion)) {
        add(conflict(dependency, build, own.providedVersion, candidate));
      }
    }
  }
  return conflicts;
}

function conflict(
  wanting: SharedDependency,
  wanter: LiveBuild,
  provided: string,
  provider: LiveBuild,
): SharedDependencyConflict {
  return {
    package: wanting.name,
    required: wanting.requiredVersion ?? '*',
    requiredBy: wanter.label,
    provided,
    providedBy: provider.label,
  };
}

/** Whether `version` is in `range` (null: any), counting prereleases as Module Federation's runtime does. */
function accepts(range: string | null, version: string): boolean {
  return range === null || semver.satisfies(version, range, { includePrerelease: true });
}

/** Whether a manifest entry's `assets` list any JavaScript file: the build brings its own copy. */
function hasFiles(assets: unknown): boolean {
  if (!isRecord(assets) || !isRecord(assets['js'])) return false;
  const { sync, async } = assets['js'];
  return (Array.isArray(sync) && sync.length > 0) || (Array.isArray(async) && async.length > 0);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
