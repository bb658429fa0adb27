import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { emitReleaseTypes } from '@atrium/sdk/build';
import { RELEASE_TYPES_FILE } from '@atrium/sdk/release-types';
import { repoRoot } from './publish-release.ts';

// Test support for the release CLI's specs: builds of a small remote, "leave", whose declarations the sdk's
// own build step writes from a source file the spec gives.

/**
 * A folder for one spec's fixtures inside the repository (node_modules/.cache), where `@atrium/sdk` and React's
 * types resolve as they do for a remote or a consumer in it.
 */
export function fixtureFolder(): string {
  const cache = join(repoRoot, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  return mkdtempSync(join(cache, 'atrium-release-cli-spec-'));
}

/** TypeScript settings as a remote's and a consumer's tsconfig.json have them. */
export const FIXTURE_COMPILER_OPTIONS = {
  strict: true,
  target: 'ES2023',
  lib: ['ES2023', 'DOM', 'DOM.Iterable'],
  module: 'preserve',
  moduleResolution: 'bundler',
  jsx: 'react-jsx',
  skipLibCheck: true,
  types: [],
};

/**
 * A production build of "leave" at `version` in `<work>/leave-<version>/dist`: an `mf-manifest.json`, the entry
 * it names and the `atrium-types.json` the sdk's build writes for `./Feature` from `feature` (a .tsx source).
 */
export function writeFixtureBuild(work: string, version: string, feature: string): string {
  const dir = join(work, `leave-${version}`);
  mkdirSync(join(dir, 'src'), { recursive: true });
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: FIXTURE_COMPILER_OPTIONS, include: ['src'] }),
  );
  writeFileSync(join(dir, 'src/feature.tsx'), feature);
  const types = emitReleaseTypes({
    dir,
    remote: 'leave',
    version,
    exposes: { './Feature': './src/feature.tsx' },
  });
  const dist = join(dir, 'dist');
  mkdirSync(join(dist, 'js'), { recursive: true });
  // Odd spacing on purpose: the hash is of the exact bytes, not of the parsed JSON.
  writeFileSync(
    join(dist, 'mf-manifest.json'),
    '{ "metaData":  { "publicPath": "auto", "remoteEntry": { "path": "js", "name": "entry.js" } } }\n',
  );
  writeFileSync(join(dist, 'js/entry.js'), `var leave = { version: ${JSON.stringify(version)} };`);
  writeFileSync(join(dist, RELEASE_TYPES_FILE), JSON.stringify(types));
  return dist;
}

/**
 * The Feature of "leave" 1.x: the shell's props and a title, and facts about the feature that a consumer
 * reads. `without` leaves out a prop or a property, as a later release might.
 */
export function leaveFeature(options: { without?: 'title' | 'icon'; add?: string } = {}): string {
  return `import type { FeatureProps } from '@atrium/sdk';

export interface LeaveProps extends FeatureProps {
  ${options.without === 'title' ? '' : 'readonly title?: string;'}
  ${options.add ?? ''}
}

export function Feature(props: LeaveProps) {
  return <h1>{props.basePath}</h1>;
}

export const leaveInfo = {
  name: 'Leave',
  ${options.without === 'icon' ? '' : "icon: 'calendar',"}
};
`;
}
