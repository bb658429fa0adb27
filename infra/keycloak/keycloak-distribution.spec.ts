import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checksumMatches,
  ensureKeycloakDistribution,
  formatProgress,
  KEYCLOAK_VERSION,
  keycloakCacheDir,
  keycloakDistUrl,
  sha512OfFile,
} from './keycloak-distribution.ts';

describe('distribution location', () => {
  it('points at the pinned tar.gz on Maven Central', () => {
    expect(keycloakDistUrl()).toBe(
      `https://repo.maven.apache.org/maven2/org/keycloak/keycloak-quarkus-dist/${KEYCLOAK_VERSION}/keycloak-quarkus-dist-${KEYCLOAK_VERSION}.tar.gz`,
    );
    expect(keycloakDistUrl('https://mirror.example/maven2/')).toMatch(
      /^https:\/\/mirror\.example\/maven2\/org\/keycloak\//,
    );
  });

  it('caches under XDG_CACHE_HOME when it is set, else under ~/.cache', () => {
    expect(keycloakCacheDir({ XDG_CACHE_HOME: '/var/cache/me' })).toBe(
      `/var/cache/me/atrium/keycloak/${KEYCLOAK_VERSION}`,
    );
    expect(keycloakCacheDir({})).toMatch(
      new RegExp(`/\\.cache/atrium/keycloak/${KEYCLOAK_VERSION.replaceAll('.', '\\.')}$`),
    );
  });
});

describe('checksums', () => {
  it('accepts the matching digest in any case and with a file name after it', () => {
    const digest = createHash('sha512').update('abc').digest('hex');
    expect(checksumMatches(digest, `${digest.toUpperCase()}  keycloak.tar.gz\n`)).toBe(true);
  });

  it('rejects a different or missing digest', () => {
    const digest = createHash('sha512').update('abc').digest('hex');
    expect(checksumMatches(digest, createHash('sha512').update('abd').digest('hex'))).toBe(false);
    expect(checksumMatches(digest, '<html>404</html>')).toBe(false);
  });

  it('hashes a file like sha512sum does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'atrium-sha-'));
    try {
      writeFileSync(join(dir, 'f'), 'abc');
      expect(await sha512OfFile(join(dir, 'f'))).toBe(createHash('sha512').update('abc').digest('hex'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports progress as a percentage, or in MB when the size is unknown', () => {
    expect(formatProgress(88_200_000, 176_400_000)).toBe('50% of 176.4 MB');
    expect(formatProgress(12_000_000, undefined)).toBe('12.0 MB');
  });
});

describe('ensureKeycloakDistribution', () => {
  const dirs: string[] = [];
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((done) => (server ? server.close(done) : done(undefined)));
    server = undefined;
    dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  });

  function tempDir(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  }

  /** A small archive shaped like the real one: keycloak-<version>/bin/kc.sh. */
  function fakeArchive(): Buffer {
    const src = tempDir('atrium-fake-dist-');
    mkdirSync(join(src, `keycloak-${KEYCLOAK_VERSION}`, 'bin'), { recursive: true });
    writeFileSync(join(src, `keycloak-${KEYCLOAK_VERSION}`, 'bin', 'kc.sh'), '#!/bin/sh\n');
    const result = spawnSync('tar', [
      '-czf',
      join(src, 'dist.tar.gz'),
      '-C',
      src,
      `keycloak-${KEYCLOAK_VERSION}`,
    ]);
    expect(result.status).toBe(0);
    return readFileSync(join(src, 'dist.tar.gz'));
  }

  /** A local Maven repository stand-in on loopback; `respond` decides what the archive request gets. */
  async function serveRepository(respond: (res: ServerResponse) => void): Promise<string> {
    server = createServer((_req, res) => respond(res));
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/maven2`;
  }

  it('returns a cached distribution without downloading', async () => {
    const cacheDir = tempDir('atrium-cache-');
    mkdirSync(join(cacheDir, `keycloak-${KEYCLOAK_VERSION}`, 'bin'), { recursive: true });
    writeFileSync(join(cacheDir, `keycloak-${KEYCLOAK_VERSION}`, 'bin', 'kc.sh'), '');
    const dist = await ensureKeycloakDistribution({ cacheDir, repository: 'http://127.0.0.1:9/unreachable' });
    expect(dist).toBe(join(cacheDir, `keycloak-${KEYCLOAK_VERSION}`));
  });

  it('downloads, verifies and unpacks into place, leaving no temporary files', async () => {
    const archive = fakeArchive();
    const repository = await serveRepository((res) => {
      res.writeHead(200, { 'content-length': archive.length }).end(archive);
    });
    const cacheDir = tempDir('atrium-cache-');
    const dist = await ensureKeycloakDistribution({
      cacheDir,
      repository,
      sha512: createHash('sha512').update(archive).digest('hex'),
    });
    expect(readFileSync(join(dist, 'bin', 'kc.sh'), 'utf8')).toBe('#!/bin/sh\n');
    expect(readdirSync(cacheDir)).toEqual([`keycloak-${KEYCLOAK_VERSION}`]);
  });

  it('keeps nothing when the download does not match the pinned checksum', async () => {
    const archive = fakeArchive();
    const repository = await serveRepository((res) => res.writeHead(200).end(archive));
    const cacheDir = tempDir('atrium-cache-');
    await expect(ensureKeycloakDistribution({ cacheDir, repository })).rejects.toThrow(
      /corrupt or not the expected release/,
    );
    expect(readdirSync(cacheDir)).toEqual([]);
  });

  it('keeps nothing when the download is cut off', async () => {
    const repository = await serveRepository((res) => {
      res.writeHead(200, { 'content-length': 1_000_000 });
      res.write(Buffer.alloc(1000));
      setTimeout(() => res.destroy(), 50);
    });
    const cacheDir = tempDir('atrium-cache-');
    await expect(ensureKeycloakDistribution({ cacheDir, repository })).rejects.toThrow();
    expect(readdirSync(cacheDir)).toEqual([]);
  });
});
