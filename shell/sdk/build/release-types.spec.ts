import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseReleaseTypes, RELEASE_TYPES_FORMAT, SDK_TYPES_DIR } from '../src/release-types.ts';
import { emitReleaseTypes } from './release-types.ts';

const profile = join(import.meta.dirname, '../../../remotes/profile');
const sdkVersion = (
  JSON.parse(readFileSync(join(import.meta.dirname, '../package.json'), 'utf8')) as {
    version: string;
  }
).version;

// Each case runs the TypeScript compiler over a real remote: seconds of CPU, more on a busy machine than vitest's
// default 5 s allow (it failed once at 5.5 s while a browser tier ran beside it).
describe('emitReleaseTypes', { timeout: 60_000 }, () => {
  it("writes the declarations of a remote's exposed module and of the sdk it was built against", () => {
    const types = emitReleaseTypes({
      dir: profile,
      remote: 'profile',
      version: '1.2.3',
      exposes: { './Feature': './src/feature.tsx' },
    });

    expect(types).toMatchObject({
      format: RELEASE_TYPES_FORMAT,
      remote: 'profile',
      version: '1.2.3',
      sdkVersion,
    });
    expect(types.exposes).toEqual({ './Feature': 'Feature.d.ts' });
    expect(types.files['Feature.d.ts']).toBe("export * from './src/feature';\n");
    expect(types.files['src/feature.d.ts']).toContain(
      "export declare const Feature: RemoteModule['Feature'];",
    );
    // A style sheet says nothing about types; the screens behind the Feature are not part of its contract.
    expect(types.files['src/feature.d.ts']).not.toMatch(/\.css/);
    expect(Object.keys(types.files).filter((file) => !file.startsWith(SDK_TYPES_DIR))).toEqual([
      'Feature.d.ts',
      'src/feature.d.ts',
    ]);
    expect(types.files[`${SDK_TYPES_DIR}/src/contract.d.ts`]).toContain('export interface FeatureProps');
    expect(JSON.parse(types.files[`${SDK_TYPES_DIR}/package.json`] ?? '{}')).toMatchObject({
      name: '@atrium/sdk',
      version: sdkVersion,
      exports: { '.': './src/index.d.ts' },
    });
    // What the release store keeps reads back as it was written.
    expect(parseReleaseTypes(JSON.stringify(types), 'atrium-types.json')).toEqual(types);
  });

  it('fails, naming it, when an exposed module cannot be read, rather than write a release without its types', () => {
    expect(() =>
      emitReleaseTypes({
        dir: profile,
        remote: 'profile',
        version: '1.2.3',
        exposes: { './Feature': './src/no-such-feature.tsx' },
      }),
    ).toThrow(/cannot be written:\n- src\/no-such-feature\.tsx is not a file the compiler can read/);
  });
});

describe('parseReleaseTypes', () => {
  const valid = {
    format: RELEASE_TYPES_FORMAT,
    remote: 'leave',
    version: '1.0.0',
    sdkVersion: '0.1.0',
    exposes: { './Feature': 'Feature.d.ts' },
    files: { 'Feature.d.ts': 'export {};\n' },
  };

  it.each([
    ['is not JSON', '{', /is not JSON/],
    ['has another format', JSON.stringify({ ...valid, format: 'other/1' }), /is not a release's types file/],
    [
      'names a file outside its folder',
      JSON.stringify({ ...valid, files: { ...valid.files, '../../.bashrc': 'x' } }),
      /names a file outside its folder: \.\.\/\.\.\/\.bashrc/,
    ],
    [
      'exposes a file it does not hold',
      JSON.stringify({ ...valid, exposes: { './Feature': 'Gone.d.ts' } }),
      /exposes Gone\.d\.ts, which it does not hold/,
    ],
  ])('refuses a file that %s', (_case, text, message) => {
    expect(() => parseReleaseTypes(text, 'atrium-types.json')).toThrow(message);
  });
});
