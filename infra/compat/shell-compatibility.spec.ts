import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { liveReleasesOf, readShellBuild, shellCompatibility } from './shell-compatibility.ts';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'atrium-compat-spec-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

/** A shell build's mf-manifest.json that provides react at `react` (its own copy, in the vendors file). */
function shellBuild(react: string): string {
  const entry = (name: string, version: string) => ({
    id: `shell:${name}`,
    name,
    version,
    singleton: true,
    requiredVersion: `^${version}`,
    assets: { js: { async: [], sync: ['vendors.js'] }, css: { async: [], sync: [] } },
    fallback: '',
  });
  writeFileSync(
    join(work, 'mf-manifest.json'),
    JSON.stringify({
      id: 'shell',
      name: 'shell',
      shared: [entry('react', react), entry('@atrium/sdk', '0.1.0')],
    }),
  );
  return work;
}

const version = (name: string, requiredVersion: string) => ({
  name,
  shareScope: 'default',
  singleton: true,
  requiredVersion,
  providedVersion: null,
});

// The registry's answer, as `GET /api/admin/remotes` gives it (the fields this check reads).
const remotes = [
  {
    name: 'profile',
    versions: [
      { version: '1.1.0', active: false, shared: [version('react', '^20.0.0')] },
      {
        version: '1.0.0',
        active: true,
        shared: [version('react', '^19.3.1'), version('@atrium/sdk', '^0.1.0')],
      },
      { version: '0.9.0', active: false, shared: [version('react', '^18.0.0')] },
    ],
  },
  { name: 'admin', versions: [{ version: '0.4.0', active: true, shared: null }] },
] as unknown as Parameters<typeof liveReleasesOf>[0];

describe('npm run compat', () => {
  it("reports each live release a shell upgrade would break, with the package, its range and the shell's version", () => {
    const live = liveReleasesOf(remotes, new Map([['profile', '1.1.0']]));
    expect(live.map(({ remote, version: v, as }) => `${remote} ${v} ${as}`)).toEqual([
      'profile 1.1.0 canary',
      'profile 1.0.0 active',
      'admin 0.4.0 active',
    ]);
    expect(shellCompatibility(readShellBuild(shellBuild('20.0.0')), live)).toEqual({
      breaking: 1,
      lines: [
        'profile 1.1.0 (canary): ok',
        'profile 1.0.0 (active): would break: profile 1.0.0 needs react ^19.3.1, and the new shell provides 20.0.0',
        'admin 0.4.0 (active): not checked, it was published without its manifest',
      ],
    });
    expect(shellCompatibility(readShellBuild(join(shellBuild('19.4.0'), 'mf-manifest.json')), live)).toEqual(
      expect.objectContaining({ breaking: 1 }),
    );
  });

  it('says to build the shell first when its manifest is missing', () => {
    expect(() => readShellBuild(join(work, 'dist'))).toThrow(/does not exist: build the shell first/);
  });
});
