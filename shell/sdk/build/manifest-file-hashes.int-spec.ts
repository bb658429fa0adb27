import { rspack, type RspackOptions } from '@rspack/core';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposedFiles, MANIFEST_FILE_HASHES, remoteUniqueName } from '../src/remote-entry.ts';
import { MANIFEST_FILE, sriHash } from './manifest-file-hashes.ts';
import { defineRemoteConfig } from './remote-config.ts';

// A remote as `npm run new:remote` writes one, built for production with the real rspack and Module Federation.
const REPO = join(import.meta.dirname, '..', '..', '..');
let dir: string;
let out: string;
let manifest: Record<string, unknown>;

function build(options: RspackOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    rspack(options, (error, stats) => {
      if (error) reject(error);
      else if (stats?.hasErrors()) reject(new Error(stats.toString({ all: false, errors: true })));
      else resolve();
    });
  });
}

beforeAll(async () => {
  // Inside the repository (its git-ignored data folder, outside node_modules, whose files the build leaves to
  // their packages), so that the compiler finds react's types as a remote's would.
  const data = join(REPO, '.data');
  mkdirSync(data, { recursive: true });
  dir = mkdtempSync(join(data, 'atrium-hashes-'));
  out = join(dir, 'dist');
  const sdk = JSON.parse(readFileSync(join(REPO, 'shell/sdk/package.json'), 'utf8')) as { version: string };
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      name: 'hashes-fixture',
      version: '1.2.3',
      atrium: { remote: 'hashes', devPort: 5999 },
      dependencies: { react: '19.3.1', 'react-dom': '19.3.1', '@atrium/sdk': sdk.version },
    }),
  );
  // The compiler options of a remote's own tsconfig.json: a production build writes what it exposes.
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: join(REPO, 'tsconfig.base.json'),
      compilerOptions: {
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        module: 'preserve',
        moduleResolution: 'bundler',
        jsx: 'react-jsx',
        types: [],
        rootDir: 'src',
      },
      include: ['src'],
    }),
  );
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'src/env.d.ts'), "declare module '*.css';\n");
  writeFileSync(join(dir, 'src/feature.css'), '.feature { color: rebeccapurple; }\n');
  writeFileSync(
    join(dir, 'src/feature.tsx'),
    'import \'./feature.css\';\nexport function Feature() { return <p className="feature">Hashed</p>; }\n',
  );
  const config = defineRemoteConfig({ dir, exposes: { './Feature': './src/feature.tsx' } })({}, {});
  await build({
    ...config,
    output: { ...config.output, path: out },
    // The fixture lives outside the repository: resolve react's JSX runtime from the repository's packages.
    resolve: { ...config.resolve, modules: ['node_modules', join(REPO, 'node_modules')] },
  });
  manifest = JSON.parse(readFileSync(join(out, MANIFEST_FILE), 'utf8')) as Record<string, unknown>;
}, 60_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a production build of a remote', () => {
  it("records in its manifest the SRI hash of each of its Feature's files, as the browser computes it", () => {
    const files = exposedFiles(manifest);
    expect(files.some((file) => file.endsWith('.js'))).toBe(true);
    expect(files.some((file) => file.endsWith('.css'))).toBe(true);
    const hashes = manifest[MANIFEST_FILE_HASHES] as Record<string, string>;
    expect(Object.keys(hashes).sort()).toEqual([...files].sort());
    const entry = readFileSync(join(out, 'remoteEntry.js'), 'utf8');
    for (const file of files) {
      expect(hashes[file]).toBe(sriHash(readFileSync(join(out, file))));
      // The same hash the entry's runtime loads the file with: one check, whichever loads it first.
      expect(entry).toContain(hashes[file]);
    }
  });

  it('compresses the manifest with its hashes in it', async () => {
    const { brotliDecompressSync } = await import('node:zlib');
    expect(brotliDecompressSync(readFileSync(join(out, `${MANIFEST_FILE}.br`))).toString()).toBe(
      readFileSync(join(out, MANIFEST_FILE), 'utf8'),
    );
  });

  it('hands its chunks to its runtime through a global of its own release', () => {
    const [chunk] = exposedFiles(manifest).filter((file) => file.endsWith('.js'));
    expect(readFileSync(join(out, chunk!), 'utf8')).toContain(
      `globalThis.rspackChunk${remoteUniqueName('hashes', '1.2.3')}`,
    );
  });
});
