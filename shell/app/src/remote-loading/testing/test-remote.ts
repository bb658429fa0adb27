import type { RemoteDescriptor } from '@atrium/sdk';

/** Where the test remotes' releases are (nothing is fetched from it unless a test serves it). */
export const TEST_STORE = 'http://remotes.test';

export interface TestRemoteOptions {
  readonly version?: string;
  /** The release store's origin; the entry is `<store>/<name>/<version>/mf-manifest.json`. */
  readonly store?: string;
}

/**
 * A remote as the registry lists it (`GET /api/remotes`), for the shell's tests: `profile` by default, titled
 * after its name, at `/<name>`, with hashes of the right shape.
 */
export function testRemote(
  name = 'profile',
  { version = '1.0.0', store = TEST_STORE }: TestRemoteOptions = {},
): RemoteDescriptor {
  return {
    name,
    title: `${name[0]?.toUpperCase() ?? ''}${name.slice(1)}`,
    path: `/${name}`,
    navOrder: 10,
    version,
    entry: `${store}/${name}/${version}/mf-manifest.json`,
    integrity: `sha384-${'a'.repeat(64)}`,
    manifestIntegrity: `sha384-${'b'.repeat(64)}`,
    requiredRoles: [],
  };
}
