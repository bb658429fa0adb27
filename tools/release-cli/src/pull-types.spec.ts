import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type ReleaseTarget } from './publish-release.ts';
import { pullTypes } from './pull-types.ts';
import {
  FIXTURE_COMPILER_OPTIONS,
  fixtureFolder,
  leaveFeature,
  writeFixtureBuild,
} from './release-fixtures.ts';
import { uploadRelease } from './release-store.ts';

let work: string;
beforeEach(() => {
  work = fixtureFolder();
});
afterEach(() => {
  vi.unstubAllGlobals();
  rmSync(work, { recursive: true, force: true });
});

const target = (): ReleaseTarget => ({
  storeDir: join(work, 'store'),
  storeUrl: 'http://store.test',
  apiUrl: 'http://api.test',
  issuer: 'http://issuer.test/realms/atrium',
  clientId: 'atrium-deployer',
  clientSecret: 'secret',
});

/** "leave" 1.0.0 in the release store, and 2.0.0, whose leaveInfo has no icon any more. */
function releases(): void {
  for (const [version, feature] of [
    ['1.0.0', leaveFeature()],
    ['2.0.0', leaveFeature({ without: 'icon' })],
  ] as const) {
    const sourceDir = writeFixtureBuild(work, version, feature);
    uploadRelease({ sourceDir, storeDir: target().storeDir, remote: 'leave', version });
  }
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * A consumer of "leave" with the tsconfig.json that `npm run types` tells of: it renders the Feature and reads
 * `leaveInfo.icon`, which is undefined at run time in a release without it. Runs tsc on it.
 */
function typecheckConsumer(): { status: number | null; output: string } {
  const consumer = join(work, 'consumer');
  mkdirSync(consumer, { recursive: true });
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        ...FIXTURE_COMPILER_OPTIONS,
        noEmit: true,
        paths: { 'leave/*': ['./types/leave/*'] },
      },
      files: ['consumer.tsx'],
    }),
  );
  writeFileSync(
    join(consumer, 'consumer.tsx'),
    `import { Feature, leaveInfo } from 'leave/Feature';

export const icon = leaveInfo.icon.toUpperCase();
export const page = <Feature basePath="/leave" title="Time off" />;
`,
  );
  const run = spawnSync(process.execPath, [tsc, '-p', consumer], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

// The TypeScript compiler runs in each case: seconds of CPU, more than vitest's default 5 s on a busy machine.
describe('pullTypes', { timeout: 60_000 }, () => {
  it("writes a release's types where the consumer's typecheck finds them, which then fails on a property the release removed", async () => {
    releases();
    const outDir = join(work, 'consumer/types');

    const pulled = await pullTypes({ release: 'leave@1.0.0', target: target(), outDir });
    expect(pulled.folder).toBe(join(outDir, 'leave'));
    expect(readFileSync(join(outDir, 'leave/Feature.d.ts'), 'utf8')).toBe("export * from './src/feature';\n");
    // What the consumer does is right for 1.0.0: the check below can fail only because of 2.0.0's types.
    expect(typecheckConsumer()).toEqual({ status: 0, output: '' });

    await pullTypes({ release: 'leave@2.0.0', target: target(), outDir });
    const checked = typecheckConsumer();
    expect(checked.status).not.toBe(0);
    expect(checked.output).toMatch(/consumer\.tsx\(3,.*error TS2339: Property 'icon' does not exist/);
  });

  it('pulls the active version, which the registry tells the owner', async () => {
    releases();
    vi.stubGlobal('fetch', (url: string): Promise<Response> => {
      if (url.endsWith('/.well-known/openid-configuration')) {
        return Promise.resolve(Response.json({ token_endpoint: 'http://issuer.test/token' }));
      }
      if (url === 'http://issuer.test/token')
        return Promise.resolve(Response.json({ access_token: 'token' }));
      if (url === 'http://api.test/api/remotes/leave/versions') {
        return Promise.resolve(
          Response.json({ remote: { name: 'leave', activeVersion: '2.0.0' }, versions: [] }),
        );
      }
      return Promise.resolve(new Response(null, { status: 404 }));
    });

    const { types } = await pullTypes({ release: 'leave', target: target(), outDir: join(work, 'types') });

    expect(types.version).toBe('2.0.0');
    expect(types.sdkVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it.each([
    ['a version the store does not have', 'leave@9.9.9', /leave 9\.9\.9 has no types in the release store/],
    ['a name that is not a remote', 'Leave!@1.0.0', /"Leave!" is not a remote's name/],
  ])('says what to do for %s', async (_case, release, message) => {
    // The store's URL answers nothing for a release its folder lacks.
    vi.stubGlobal('fetch', () => Promise.resolve(new Response(null, { status: 404 })));
    await expect(pullTypes({ release, target: target(), outDir: join(work, 'types') })).rejects.toThrow(
      message,
    );
  });
});
