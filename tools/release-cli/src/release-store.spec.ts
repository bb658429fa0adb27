import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ReleaseError } from './release-error.ts';
import {
  fingerprint,
  integrityOf,
  ReleaseConflictError,
  remoteEntryFile,
  uploadRelease,
} from './release-store.ts';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'atrium-store-spec-'));
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

function build(files: Record<string, string>): string {
  const dir = mkdtempSync(join(work, 'dist-'));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), content);
  }
  return dir;
}

describe('uploadRelease', () => {
  const storeDir = () => join(work, 'store');

  it('copies the build under <remote>/<version>/ without type declarations', () => {
    const sourceDir = build({ 'mf-manifest.json': '{}', 'remoteEntry.js': 'var p;', 'types/x.d.ts': '' });

    expect(uploadRelease({ sourceDir, storeDir: storeDir(), remote: 'profile', version: '1.0.0' })).toBe(
      'uploaded',
    );
    expect(readFileSync(join(storeDir(), 'profile/1.0.0/remoteEntry.js'), 'utf8')).toBe('var p;');
    expect(() => readFileSync(join(storeDir(), 'profile/1.0.0/types/x.d.ts'))).toThrow();
  });

  it('accepts the same files again and refuses different files under an existing version', () => {
    const first = build({ 'mf-manifest.json': '{}', 'remoteEntry.js': 'var p = 1;' });
    const same = build({ 'mf-manifest.json': '{}', 'remoteEntry.js': 'var p = 1;' });
    const changed = build({ 'mf-manifest.json': '{}', 'remoteEntry.js': 'var p = 2;' });
    const target = { storeDir: storeDir(), remote: 'profile', version: '1.0.0' };

    uploadRelease({ sourceDir: first, ...target });
    expect(uploadRelease({ sourceDir: same, ...target })).toBe('already-present');
    expect(() => uploadRelease({ sourceDir: changed, ...target })).toThrow(ReleaseConflictError);
    expect(() => uploadRelease({ sourceDir: changed, ...target })).toThrow(/immutable/);
    expect(readFileSync(join(storeDir(), 'profile/1.0.0/remoteEntry.js'), 'utf8')).toBe('var p = 1;');
  });

  it('fingerprints a build by its file names and contents', () => {
    const a = build({ 'mf-manifest.json': '{}', 'remoteEntry.js': 'var p = 1;' });
    const same = build({ 'mf-manifest.json': '{}', 'remoteEntry.js': 'var p = 1;' });
    const renamed = build({ 'mf-manifest.json': '{}', 'entry.js': 'var p = 1;' });
    expect(fingerprint(a)).toBe(fingerprint(same));
    expect(fingerprint(a)).not.toBe(fingerprint(renamed));
    expect(fingerprint(a)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a folder that is not a build', () => {
    const sourceDir = build({ 'index.html': '' });
    expect(() =>
      uploadRelease({ sourceDir, storeDir: storeDir(), remote: 'profile', version: '1.0.0' }),
    ).toThrow(/no mf-manifest.json/);
  });
});

describe('integrityOf', () => {
  it('gives the sha384 subresource-integrity value of a file', () => {
    const file = join(work, 'remoteEntry.js');
    writeFileSync(file, 'alert(1)');
    // printf 'alert(1)' | openssl dgst -sha384 -binary | base64
    expect(integrityOf(file)).toBe('sha384-HT2E9NfWiuQ/w1PRai+hTyqW16NIoCGA/m8VQDUopfAtcz6YQjtsMmQd5uRbVDpW');
  });
});

describe('remoteEntryFile', () => {
  const manifest = (metaData: object) => JSON.stringify({ metaData });

  it('is the file the manifest names as its remote entry, beside the manifest', () => {
    const dir = build({
      'mf-manifest.json': manifest({ publicPath: 'auto', remoteEntry: { path: 'js', name: 'entry.js' } }),
      'js/entry.js': 'var p;',
      'remoteEntry.js': 'not the entry',
    });

    expect(remoteEntryFile(dir)).toBe(join(dir, 'js/entry.js'));
  });

  it.each([
    ['names no remote entry', manifest({ publicPath: 'auto' }), /names no metaData.remoteEntry/],
    [
      'is served from another public path',
      manifest({ publicPath: 'https://cdn.test/', remoteEntry: { path: '', name: 'remoteEntry.js' } }),
      /publicPath "https:\/\/cdn.test\/"/,
    ],
    [
      'names a file outside the release',
      manifest({ publicPath: 'auto', remoteEntry: { path: '..', name: 'remoteEntry.js' } }),
      /which is not in the release/,
    ],
    [
      'names a missing file',
      manifest({ publicPath: 'auto', remoteEntry: { path: '', name: 'gone.js' } }),
      /gone.js, which is not in the release/,
    ],
    ['is not JSON', '{', /cannot be read as JSON/],
  ])('refuses a release whose manifest %s', (_case, content, message) => {
    const dir = build({ 'mf-manifest.json': content, 'remoteEntry.js': 'var p;' });

    expect(() => remoteEntryFile(dir)).toThrow(ReleaseError);
    expect(() => remoteEntryFile(dir)).toThrow(message);
  });
});
