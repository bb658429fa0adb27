import { describe, expect, it } from 'vitest';
import {
  type LiveBuild,
  type SharedDependency,
  sharedDependenciesOf,
  sharedDependencyConflicts,
} from './shared-dependencies.js';

/** One `shared` entry as Module Federation 2 writes it into mf-manifest.json; `files` lists the copy it brings. */
const entry = (name: string, version: string, requiredVersion: unknown, files: string[] = []) => ({
  id: `x:${name}`,
  name,
  version,
  singleton: true,
  requiredVersion,
  assets: { js: { async: [], sync: files }, css: { async: [], sync: [] } },
  fallback: '',
});

const parse = (shared: unknown[]): SharedDependency[] => {
  const result = sharedDependenciesOf({ id: 'x', name: 'x', shared, exposes: [] });
  if ('problem' in result) throw new Error(result.problem);
  return result.dependencies;
};

// The shell's own build: its copies of the singletons, in the vendors file.
const shell: LiveBuild = {
  label: 'the shell',
  shared: parse([
    entry('@atrium/sdk', '0.1.0', '^0.1.0', ['384.js']),
    entry('react-dom', '19.3.1', '^19.3.1', ['vendors.js']),
    entry('react', '19.3.1', '^19.3.1', ['vendors.js']),
  ]),
};

/** A remote's release built as Atrium builds them: the shell's singletons with `import: false` (no copy). */
const release = (label: string, remote: string, shared: unknown[]): LiveBuild => ({
  label,
  remote,
  shared: parse(shared),
});

describe('sharedDependenciesOf', () => {
  it("reads a remote's declarations as built: ranges, singletons, and no copy of what it leaves to the shell", () => {
    expect(parse([entry('@atrium/sdk', '^0.1.0', '^0.1.0'), entry('react', '19.3.1', '^19.3.1')])).toEqual([
      {
        name: '@atrium/sdk',
        shareScope: 'default',
        singleton: true,
        requiredVersion: '^0.1.0',
        providedVersion: null,
      },
      {
        name: 'react',
        shareScope: 'default',
        singleton: true,
        requiredVersion: '^19.3.1',
        providedVersion: null,
      },
    ]);
    expect(shell.shared.map((dependency) => dependency.providedVersion)).toEqual([
      '0.1.0',
      '19.3.1',
      '19.3.1',
    ]);
  });

  it('takes no range (or false) as any version and a manifest without `shared` as sharing nothing', () => {
    expect(parse([entry('a', '1.0.0', false), entry('b', '1.0.0', undefined)])).toMatchObject([
      { requiredVersion: null },
      { requiredVersion: null },
    ]);
    expect(sharedDependenciesOf({ id: 'x' })).toEqual({ dependencies: [] });
  });

  it('names what it cannot read', () => {
    expect(sharedDependenciesOf([])).toEqual({ problem: 'is not a JSON object' });
    expect(sharedDependenciesOf({ shared: {} })).toEqual({ problem: '`shared` is not a list' });
    expect(sharedDependenciesOf({ shared: [entry('react', '1.0.0', 'twenty')] })).toEqual({
      problem: 'shared[0].requiredVersion "twenty" is not a semver range',
    });
    expect(sharedDependenciesOf({ shared: [{ name: '' }] })).toEqual({
      problem: 'shared[0].name must be a package name',
    });
    expect(sharedDependenciesOf({ shared: [entry('react', '1.0.0', 20)] })).toEqual({
      problem: 'shared[0].requiredVersion must be a semver range',
    });
  });
});

describe('sharedDependencyConflicts', () => {
  const profile = (version: string, reactRange: string) =>
    release(`profile ${version}`, 'profile', [
      entry('@atrium/sdk', '^0.1.0', '^0.1.0'),
      entry('react', '19.3.1', reactRange),
    ]);

  it('refuses a release that needs react ^20 from a shell that provides 19.3.1', () => {
    expect(sharedDependencyConflicts(profile('2.0.0', '^20.0.0'), shell, [])).toEqual([
      {
        package: 'react',
        required: '^20.0.0',
        requiredBy: 'profile 2.0.0',
        provided: '19.3.1',
        providedBy: 'the shell',
      },
    ]);
  });

  it('passes a release whose ranges the shell meets, prereleases counted as the runtime counts them', () => {
    expect(sharedDependencyConflicts(profile('1.0.0', '^19.0.0'), shell, [])).toEqual([]);
    const canaryShell: LiveBuild = {
      label: 'the shell',
      shared: parse([entry('react', '19.4.0-rc.1', '^19.4.0-rc.1', ['vendors.js'])]),
    };
    expect(
      sharedDependencyConflicts(
        release('r 1.0.0', 'r', [entry('react', '19.3.1', '^19.3.1')]),
        canaryShell,
        [],
      ),
    ).toEqual([]);
  });

  it('refuses a package the release brings no copy of and the shell does not provide', () => {
    const router = release('profile 3.0.0', 'profile', [entry('react-router', '7.0.0', '^7.0.0')]);
    expect(sharedDependencyConflicts(router, shell, [])).toEqual([
      {
        package: 'react-router',
        required: '^7.0.0',
        requiredBy: 'profile 3.0.0',
        provided: null,
        providedBy: 'the shell',
      },
    ]);
    // Unknown shell: nothing is checked against it.
    expect(sharedDependencyConflicts(router, null, [])).toEqual([]);
  });

  it("refuses a singleton copy of the release's own that the shell or a live release does not accept, both ways", () => {
    const billing = release('billing 1.4.0', 'billing', [entry('zustand', '4.5.0', '^4.0.0', ['z.js'])]);
    const newer = release('profile 2.0.0', 'profile', [
      entry('zustand', '5.0.0', '^5.0.0', ['z.js']),
      entry('react', '20.0.0', '^20.0.0', ['react.js']),
    ]);
    expect(sharedDependencyConflicts(newer, shell, [billing])).toEqual([
      {
        package: 'zustand',
        required: '^5.0.0',
        requiredBy: 'profile 2.0.0',
        provided: '4.5.0',
        providedBy: 'billing 1.4.0',
      },
      {
        package: 'zustand',
        required: '^4.0.0',
        requiredBy: 'billing 1.4.0',
        provided: '5.0.0',
        providedBy: 'profile 2.0.0',
      },
      {
        package: 'react',
        required: '^20.0.0',
        requiredBy: 'profile 2.0.0',
        provided: '19.3.1',
        providedBy: 'the shell',
      },
      {
        package: 'react',
        required: '^19.3.1',
        requiredBy: 'the shell',
        provided: '20.0.0',
        providedBy: 'profile 2.0.0',
      },
    ]);
  });

  it("ignores the remote's own other releases, other share scopes and copies of packages that are no singleton", () => {
    const own = release('profile 1.0.0', 'profile', [entry('zustand', '4.5.0', '^4.0.0', ['z.js'])]);
    const newer = release('profile 2.0.0', 'profile', [entry('zustand', '5.0.0', '^5.0.0', ['z.js'])]);
    expect(sharedDependencyConflicts(newer, null, [own])).toEqual([]);

    const scoped: LiveBuild = {
      label: 'billing 1.0.0',
      remote: 'billing',
      shared: [{ ...own.shared[0]!, shareScope: 'billing' }],
    };
    expect(sharedDependencyConflicts(newer, null, [scoped])).toEqual([]);

    const notSingleton = (build: LiveBuild, remote: string): LiveBuild => ({
      ...build,
      remote,
      shared: build.shared.map((dependency) => ({ ...dependency, singleton: false })),
    });
    expect(
      sharedDependencyConflicts(notSingleton(newer, 'profile'), null, [notSingleton(own, 'billing')]),
    ).toEqual([]);
  });
});
