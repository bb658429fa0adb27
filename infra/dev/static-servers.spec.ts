import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseStoreSecurityHeaders } from '@atrium/shell/security-headers';
import { releaseFilePath, serveReleaseStore, type RunningServer } from './static-servers.ts';
import { fromRoot } from '../lib/paths.ts';

describe('releaseFilePath', () => {
  it('accepts /<remote>/<version>/<file> with a registrable name and version', () => {
    expect(releaseFilePath('/profile/1.0.0/remoteEntry.js')).toBe('profile/1.0.0/remoteEntry.js');
    expect(releaseFilePath('/timeoff/1.2.3-dev.79c57ca0/static/js/x.1a2b.js')).toBe(
      'timeoff/1.2.3-dev.79c57ca0/static/js/x.1a2b.js',
    );
  });

  it.each([
    ['a remote name the registry refuses', '/Profile/1.0.0/remoteEntry.js'],
    ['a remote name with an underscore', '/pro_file/1.0.0/remoteEntry.js'],
    ['a remote name with a hyphen', '/time-off/1.0.0/remoteEntry.js'],
    ['a one-letter remote name', '/p/1.0.0/remoteEntry.js'],
    ['a version that is not semver', '/profile/latest/remoteEntry.js'],
    ['a version with a leading zero', '/profile/01.0.0/remoteEntry.js'],
    ['no file', '/profile/1.0.0'],
    ['a parent folder', '/profile/1.0.0/../../admin/1.0.0/remoteEntry.js'],
    ['an encoded parent folder', '/profile/1.0.0/%2e%2e/%2E%2E/secret'],
    ['an encoded slash', '/profile/1.0.0/..%2f..%2fsecret'],
    ['backslashes', '/profile/1.0.0/..\\..\\secret'],
    ['a dotfile', '/profile/1.0.0/.env'],
    ['a dot folder', '/profile/1.0.0/.git/config'],
    ['an empty segment', '/profile/1.0.0//remoteEntry.js'],
    ['a relative path', 'profile/1.0.0/remoteEntry.js'],
  ])('refuses %s', (_case, path) => {
    expect(releaseFilePath(path)).toBeUndefined();
  });
});

describe('the release store container', () => {
  const config = readFileSync(fromRoot('infra/release-store/nginx.conf'), 'utf8');

  it('serves no dotfile and nothing but GET and HEAD', () => {
    expect(config).toMatch(/location ~ \/\\\. \{\s+return 404;\s+\}/);
    expect(config).toMatch(/limit_except GET \{\s+deny all;\s+\}/);
  });
});

describe('the local release store', () => {
  let base: string;
  let store: RunningServer;
  const SECRET = 'secret that must never be served';

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'atrium-store-spec-'));
    const dir = join(base, 'releases');
    const write = (path: string, content: string) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    };
    write(join(dir, 'profile/1.0.0/remoteEntry.js'), 'var profile = {};\n');
    write(join(dir, 'profile/1.0.0/mf-manifest.json'), '{"name":"profile"}');
    // Files a request could reach if the path were not checked first: each holds the secret.
    write(join(base, 'secret.txt'), SECRET);
    write(join(base, 'releases-sibling/profile/1.0.0/remoteEntry.js'), SECRET);
    write(join(dir, '.env'), SECRET);
    write(join(dir, 'profile/1.0.0/.env'), SECRET);
    write(join(dir, 'profile/1.0.0/.git/config'), SECRET);
    write(join(dir, 'Profile/1.0.0/remoteEntry.js'), SECRET);
    write(join(dir, 'profile/latest/remoteEntry.js'), SECRET);
    symlinkSync(join(base, 'secret.txt'), join(dir, 'profile/1.0.0/linked.js'));
    // A build's precompressed copies, and a file whose brotli copy is a link out of the store.
    const chunk = 'export const chunk = "a chunk";\n'.repeat(50);
    write(join(dir, 'profile/1.0.0/chunk.js'), chunk);
    writeFileSync(join(dir, 'profile/1.0.0/chunk.js.br'), brotliCompressSync(chunk));
    writeFileSync(join(dir, 'profile/1.0.0/chunk.js.gz'), gzipSync(chunk));
    write(join(dir, 'profile/1.0.0/trap.js'), 'var trap;\n');
    writeFileSync(join(base, 'secret.txt.br'), brotliCompressSync(SECRET));
    symlinkSync(join(base, 'secret.txt.br'), join(dir, 'profile/1.0.0/trap.js.br'));
    // A folder whose index is a link out of the store: the handler must not go looking for it.
    mkdirSync(join(dir, 'profile/1.0.0/d'));
    for (const index of ['index', 'index.html', 'index.htm'])
      symlinkSync(join(base, 'secret.txt'), join(dir, 'profile/1.0.0/d', index));
    store = await serveReleaseStore({ dir, port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await store.close();
    rmSync(base, { recursive: true, force: true });
  });

  /** A request with the path exactly as given (fetch would normalise dots and backslashes away). */
  function get(path: string, method = 'GET', headers: Record<string, string> = {}) {
    return new Promise<{ status: number; headers: Record<string, unknown>; body: string; bytes: Buffer }>(
      (done, fail) => {
        const req = request(`${store.url}/`, { method, path, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            done({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString(), bytes });
          });
        });
        req.on('error', fail);
        req.end();
      },
    );
  }

  it("sends a file's precompressed copy to a browser that accepts it, the file itself otherwise", async () => {
    const plain = await get('/profile/1.0.0/chunk.js');
    const brotli = await get('/profile/1.0.0/chunk.js', 'GET', { 'accept-encoding': 'gzip, deflate, br' });
    const gzipped = await get('/profile/1.0.0/chunk.js', 'GET', { 'accept-encoding': 'gzip' });

    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(brotli.headers).toMatchObject({ 'content-encoding': 'br', vary: 'Accept-Encoding' });
    expect(brotli.headers['content-type']).toMatch(/^text\/javascript/);
    expect(brotli.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(brotli.bytes).toString()).toBe(plain.body);
    expect(brotli.bytes.length).toBeLessThan(plain.bytes.length / 5);
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzipped.bytes).toString()).toBe(plain.body);
  });

  it('answers 404 when a precompressed copy links out of the store, whatever the browser accepts', async () => {
    for (const encoding of ['br', 'identity']) {
      const answer = await get('/profile/1.0.0/trap.js', 'GET', { 'accept-encoding': encoding });
      expect(answer.status).toBe(404);
      expect(answer.body).not.toContain(SECRET);
    }
  });

  it('serves a release file with its type, caching, CORS and the security headers', async () => {
    const entry = await get('/profile/1.0.0/remoteEntry.js');
    expect(entry.status).toBe(200);
    expect(entry.body).toBe('var profile = {};\n');
    expect(entry.headers['content-type']).toMatch(/^text\/javascript/);
    expect(entry.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(entry.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'x-content-type-options': 'nosniff',
      'cross-origin-opener-policy': 'same-origin',
      'permissions-policy': releaseStoreSecurityHeaders()['Permissions-Policy'],
    });

    const manifest = await get('/profile/1.0.0/mf-manifest.json');
    expect(manifest.headers['content-type']).toMatch(/^application\/json/);
    expect(manifest.headers['cache-control']).toBe('no-cache');
  });

  it.each([
    ['a parent folder', '/profile/1.0.0/../../../secret.txt'],
    ['parent folders right after the root', '/../secret.txt'],
    ['encoded parent folders', '/profile/1.0.0/%2e%2e/%2e%2e/%2e%2e/secret.txt'],
    ['encoded parent folders into a sibling folder', '/%2e%2e/releases-sibling/profile/1.0.0/remoteEntry.js'],
    ['encoded slashes', '/profile/1.0.0/..%2f..%2f..%2fsecret.txt'],
    ['backslashes', '/profile/1.0.0/..\\..\\..\\secret.txt'],
    ['a dotfile at the root', '/.env'],
    ['a dotfile in a release', '/profile/1.0.0/.env'],
    ['a file in a dot folder', '/profile/1.0.0/.git/config'],
    ['a remote name the registry refuses', '/Profile/1.0.0/remoteEntry.js'],
    ['a version the registry refuses', '/profile/latest/remoteEntry.js'],
    ['a symbolic link out of the store', '/profile/1.0.0/linked.js'],
    ['a folder whose index file links out of the store', '/profile/1.0.0/d'],
    ['a folder', '/profile/1.0.0/d/'],
  ])('answers 404 to %s and never sends the file', async (_case, path) => {
    const answer = await get(path);

    expect(answer.status).toBe(404);
    expect(answer.body).not.toContain(SECRET);
    expect(answer.headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'access-control-allow-origin': '*',
    });
  });

  it('answers 405 to anything but GET and HEAD', async () => {
    expect((await get('/profile/1.0.0/remoteEntry.js', 'HEAD')).status).toBe(200);
    const put = await get('/profile/1.0.0/remoteEntry.js', 'PUT');
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, HEAD');
  });
});
