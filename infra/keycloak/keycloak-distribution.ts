import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** The Keycloak release the platform is built and tested against. */
export const KEYCLOAK_VERSION = '26.7.3';

/**
 * SHA-512 of `keycloak-quarkus-dist-26.7.3.tar.gz` as published on Maven Central (`.sha512` beside it).
 * Pinned here rather than fetched so that a tampered mirror cannot serve a matching checksum.
 */
export const KEYCLOAK_DIST_SHA512 =
  '664c8ac2997d94b69825af70acc3a6017a7a53a1504a6e21b2d82a04e5f53593b30cabdf80ffe3eb661f13442a57fbc15c4186a1899f2841e8145532e5ae7e1c';

const DEFAULT_MAVEN_REPOSITORY = 'https://repo.maven.apache.org/maven2';

/** Where the tar.gz of the pinned version lives in a Maven repository (Maven Central unless a mirror is given). */
export function keycloakDistUrl(
  repository: string = DEFAULT_MAVEN_REPOSITORY,
  version: string = KEYCLOAK_VERSION,
): string {
  const base = repository.replace(/\/+$/, '');
  return `${base}/org/keycloak/keycloak-quarkus-dist/${version}/keycloak-quarkus-dist-${version}.tar.gz`;
}

/** `${XDG_CACHE_HOME:-~/.cache}/atrium/keycloak/<version>`: outside the repo, shared by every clone. */
export function keycloakCacheDir(
  env: NodeJS.ProcessEnv = process.env,
  version: string = KEYCLOAK_VERSION,
): string {
  const cacheHome = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cacheHome, 'atrium', 'keycloak', version);
}

/** Compares a computed hex digest with an expected one (case and surrounding text such as a file name ignored). */
export function checksumMatches(actualHex: string, expected: string): boolean {
  const expectedHex = /[0-9a-f]{32,128}/i.exec(expected)?.[0];
  return expectedHex !== undefined && expectedHex.toLowerCase() === actualHex.toLowerCase();
}

/** Hex SHA-512 of a file. */
export async function sha512OfFile(path: string): Promise<string> {
  const hash = createHash('sha512');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** `42% of 168.3 MB` or, when the server sends no length, `12.0 MB`. */
export function formatProgress(receivedBytes: number, totalBytes: number | undefined): string {
  const mb = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;
  if (!totalBytes) return mb(receivedBytes);
  return `${Math.floor((receivedBytes / totalBytes) * 100)}% of ${mb(totalBytes)}`;
}

export interface EnsureDistributionOptions {
  /** Defaults to {@link keycloakCacheDir}. */
  cacheDir?: string;
  /** Maven repository base URL; defaults to `ATRIUM_MAVEN_REPOSITORY` or Maven Central. */
  repository?: string;
  /** Expected SHA-512 of the archive; defaults to the pinned {@link KEYCLOAK_DIST_SHA512}. */
  sha512?: string;
  log?: (line: string) => void;
}

/**
 * Returns the folder of the unpacked Keycloak distribution (the one holding `bin/kc.sh`), downloading,
 * verifying and unpacking it first when it is not cached yet. The folder only ever appears complete:
 * unpacking happens in a temporary folder that is renamed into place at the end, so an interrupted
 * download or extraction leaves nothing that a later run would mistake for a distribution.
 */
export async function ensureKeycloakDistribution(options: EnsureDistributionOptions = {}): Promise<string> {
  const cacheDir = options.cacheDir ?? keycloakCacheDir();
  const log = options.log ?? (() => {});
  const distDir = join(cacheDir, `keycloak-${KEYCLOAK_VERSION}`);
  if (existsSync(join(distDir, 'bin', 'kc.sh'))) return distDir;

  mkdirSync(cacheDir, { recursive: true });
  removeStaleLeftovers(cacheDir);
  const unique = `${process.pid}-${Date.now()}`;
  const archive = join(cacheDir, `download-${unique}.tar.gz.part`);
  const extractDir = join(cacheDir, `extract-${unique}`);
  try {
    const url = keycloakDistUrl(options.repository ?? process.env.ATRIUM_MAVEN_REPOSITORY);
    log(`downloading Keycloak ${KEYCLOAK_VERSION} (once) from ${url}`);
    const digest = await download(url, archive);
    const expected = options.sha512 ?? KEYCLOAK_DIST_SHA512;
    if (!checksumMatches(digest, expected)) {
      throw new Error(
        `The Keycloak download from ${url} is corrupt or not the expected release: its SHA-512 is ${digest}, ` +
          `expected ${expected}. Nothing was kept; run again to retry.`,
      );
    }
    log('checksum verified, unpacking');
    mkdirSync(extractDir);
    await runTar(['-xzf', archive, '-C', extractDir]);
    const unpacked = join(extractDir, `keycloak-${KEYCLOAK_VERSION}`);
    if (!existsSync(join(unpacked, 'bin', 'kc.sh'))) {
      throw new Error(`The Keycloak archive did not contain keycloak-${KEYCLOAK_VERSION}/bin/kc.sh.`);
    }
    try {
      renameSync(unpacked, distDir);
    } catch (error) {
      // Another process finished first: its copy is as good as ours.
      if (!existsSync(join(distDir, 'bin', 'kc.sh'))) throw error;
    }
    log(`cached in ${distDir}`);
    return distDir;
  } finally {
    rmSync(archive, { force: true });
    rmSync(extractDir, { recursive: true, force: true });
  }
}

async function download(url: string, destination: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok || !response.body) {
    throw new Error(
      `Could not download Keycloak from ${url}: HTTP ${response.status}. ` +
        'Check the network or set ATRIUM_MAVEN_REPOSITORY to a Maven mirror.',
    );
  }
  const total = Number(response.headers.get('content-length')) || undefined;
  const hash = createHash('sha512');
  let received = 0;
  let lastReport = 0;
  const interactive = process.stderr.isTTY;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      received += chunk.length;
      const now = Date.now();
      if (now - lastReport > (interactive ? 250 : 2_000)) {
        lastReport = now;
        process.stderr.write(
          `${interactive ? '\r' : ''}  Keycloak download: ${formatProgress(received, total)}${interactive ? '' : '\n'}`,
        );
      }
      callback(null, chunk);
    },
  });
  // fetch's body is the DOM ReadableStream type; node:stream/web's is the same object at run time.
  await pipeline(Readable.fromWeb(response.body as WebReadableStream), meter, createWriteStream(destination));
  process.stderr.write(
    `${interactive ? '\r' : ''}  Keycloak download: ${formatProgress(received, total)}, done\n`,
  );
  if (total !== undefined && received !== total) {
    throw new Error(
      `The Keycloak download from ${url} stopped after ${received} of ${total} bytes; run again to retry.`,
    );
  }
  return hash.digest('hex');
}

async function runTar(args: string[]): Promise<void> {
  const child = spawn('tar', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`\`tar ${args.join(' ')}\` failed (exit code ${code}): ${stderr.trim()}`);
}

/** Temporary files of runs that were killed (older than an hour, so a download in progress is left alone). */
function removeStaleLeftovers(cacheDir: string): void {
  const hourAgo = Date.now() - 3_600_000;
  for (const name of readdirSync(cacheDir)) {
    if (!name.startsWith('download-') && !name.startsWith('extract-')) continue;
    const path = join(cacheDir, name);
    if (statSync(path).mtimeMs < hourAgo) rmSync(path, { recursive: true, force: true });
  }
}
