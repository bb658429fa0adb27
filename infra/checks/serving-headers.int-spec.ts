// The headers as a browser receives them: the shell's and the release store's nginx configurations run in a
// real nginx (as their images run them, with the shell template filled like the image's envsubst step:
// infra/dev/image-nginx.ts), and the local servers of `npm start` and the browser tests, each on a free loopback
// port.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fillShellTemplate as fillTemplate,
  RELEASE_STORE_SITE,
  runImageSite,
  type ShellImageEnv,
} from '../dev/image-nginx.ts';
import { serveReleaseStore, serveShell, type RunningServer } from '../dev/static-servers.ts';
import {
  releaseStoreSecurityHeaders,
  shellSecurityHeaders,
  STRICT_TRANSPORT_SECURITY,
} from '@atrium/shell/security-headers';
import { freePort } from '../lib/ports.ts';

const work = mkdtempSync(join(tmpdir(), 'atrium-headers-'));
const stoppers: (() => Promise<void> | void)[] = [];

/** Runs `site` (a server block) in nginx on a free port with `root`, the way the image would. */
async function runNginx(name: string, site: string, root: string): Promise<string> {
  const nginx = await runImageSite({ name, site, root, port: await freePort(), workDir: work });
  stoppers.push(() => nginx.stop());
  return nginx.url;
}

const origins = {
  apiUrl: 'https://atrium.test',
  authority: 'https://auth.test/realms/atrium',
  remoteOrigins: ['https://releases.test'],
};
const env: Omit<ShellImageEnv, 'ATRIUM_DEV_OVERRIDE_ORIGINS' | 'ATRIUM_OTLP_TRACES_URL'> = {
  ATRIUM_API_URL: origins.apiUrl,
  ATRIUM_OIDC_AUTHORITY: origins.authority,
  ATRIUM_REMOTE_ORIGINS: origins.remoteOrigins.join(' '),
  ATRIUM_OIDC_CLIENT_ID: 'atrium-shell',
  ATRIUM_REMOTES_URL: `${origins.apiUrl}/api/remotes`,
  ATRIUM_REMOTE_TIMEOUT_MS: '10000',
};

let shellNginx: string;
/** The shell image with dev overrides allowed (ATRIUM_DEV_OVERRIDE_ORIGINS set). */
let devShellNginx: string;
/** The shell image with tracing on (ATRIUM_OTLP_TRACES_URL set). */
let tracedShellNginx: string;
const DEV_ORIGINS = ['http://localhost:*', 'https://dev.example.test:8443'];

/** The shell's template filled as the image does it, with these dev-override origins and traces URL. */
const fillShellTemplate = (devOverrideOrigins: string, tracesUrl = '') =>
  fillTemplate({
    ...env,
    ATRIUM_DEV_OVERRIDE_ORIGINS: devOverrideOrigins,
    ATRIUM_OTLP_TRACES_URL: tracesUrl,
  });
const TRACES_URL = 'https://otel.example.test/v1/traces';

/** A policy with its sources' spacing normalised (an empty variable leaves a space in nginx's copy). */
const normalised = (headers: Record<string, string | null>) =>
  Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      value?.replace(/\s+(;|$)/g, '$1').replace(/\s+/g, ' '),
    ]),
  );
let storeNginx: string;
let localShell: RunningServer;
const SHELL_PAGE = '<!doctype html><title>shell</title>';
const SHELL_ASSET = 'main.0123abcd.js';
const SHELL_SCRIPT = 'console.log("shell");'.repeat(20);
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHELL_MANIFEST = '{"id":"shell","shared":[]}';
let localStore: RunningServer;

beforeAll(async () => {
  chmodSync(work, 0o755); // nginx workers run as an unprivileged user
  const shellRoot = join(work, 'shell');
  mkdirSync(shellRoot);
  writeFileSync(join(shellRoot, 'index.html'), SHELL_PAGE);
  writeFileSync(join(shellRoot, 'index.html.br'), brotliCompressSync(SHELL_PAGE));
  // One of the shell build's own files with the copies its build writes beside it.
  writeFileSync(join(shellRoot, SHELL_ASSET), SHELL_SCRIPT);
  writeFileSync(join(shellRoot, `${SHELL_ASSET}.gz`), gzipSync(SHELL_SCRIPT));
  writeFileSync(join(shellRoot, `${SHELL_ASSET}.br`), brotliCompressSync(SHELL_SCRIPT));
  // What the build provides, read by the API (SHELL_MANIFEST_URL); the next build's has the same name.
  writeFileSync(join(shellRoot, 'mf-manifest.json'), SHELL_MANIFEST);
  writeFileSync(join(shellRoot, 'mf-manifest.json.br'), brotliCompressSync(SHELL_MANIFEST));
  const storeRoot = join(work, 'releases');
  mkdirSync(join(storeRoot, 'profile/1.0.0/.git'), { recursive: true });
  writeFileSync(join(storeRoot, 'profile/1.0.0/remoteEntry.js'), 'console.log("remote")');
  writeFileSync(join(storeRoot, 'profile/1.0.0/remoteEntry.js.gz'), gzipSync('console.log("remote")'));
  writeFileSync(
    join(storeRoot, 'profile/1.0.0/remoteEntry.js.br'),
    brotliCompressSync('console.log("remote")'),
  );
  writeFileSync(join(storeRoot, 'profile/1.0.0/mf-manifest.json'), '{}');
  writeFileSync(join(storeRoot, 'profile/1.0.0/mf-manifest.json.br'), brotliCompressSync('{}'));
  writeFileSync(join(storeRoot, 'profile/1.0.0/.git/config'), '[core] secret');
  writeFileSync(join(storeRoot, '.env'), 'ATRIUM_DEPLOYER_SECRET=leaked');
  writeFileSync(join(work, 'outside.txt'), 'outside the store');
  symlinkSync(join(work, 'outside.txt'), join(storeRoot, 'profile/1.0.0/chunk.js'));
  // A real file whose brotli copy is a link out of the store.
  writeFileSync(join(storeRoot, 'profile/1.0.0/linked.js'), 'console.log("linked")');
  writeFileSync(join(work, 'outside.js.br'), brotliCompressSync('outside the store'));
  symlinkSync(join(work, 'outside.js.br'), join(storeRoot, 'profile/1.0.0/linked.js.br'));

  shellNginx = await runNginx('shell', fillShellTemplate(''), shellRoot);
  devShellNginx = await runNginx('shell-dev', fillShellTemplate(DEV_ORIGINS.join(' ')), shellRoot);
  tracedShellNginx = await runNginx('shell-traced', fillShellTemplate('', TRACES_URL), shellRoot);
  storeNginx = await runNginx('store', readFileSync(RELEASE_STORE_SITE, 'utf8'), storeRoot);
  localStore = await serveReleaseStore({ dir: storeRoot, port: await freePort(), host: '127.0.0.1' });
  stoppers.push(() => localStore.close());
  localShell = await serveShell({
    dir: shellRoot,
    port: await freePort(),
    host: '127.0.0.1',
    remoteOrigins: origins.remoteOrigins,
    documents: {
      '/atrium.config.json': () => ({ oidc: { authority: origins.authority }, apiBaseUrl: origins.apiUrl }),
    },
  });
  stoppers.push(() => localShell.close());
});

afterAll(async () => {
  for (const stop of stoppers.reverse()) await stop();
  rmSync(work, { recursive: true, force: true });
});

const local = (server: RunningServer) => server.url.replace('localhost', '127.0.0.1');
const get = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { headers, redirect: 'manual' });
/** A GET whose body is not decompressed on the way (fetch would undo Content-Encoding). */
const rawGet = (url: string, headers: Record<string, string>) =>
  new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });
const pick = (response: Response, names: string[]) =>
  Object.fromEntries(names.map((name) => [name, response.headers.get(name)]));

describe('every server of the shell sends the same security headers', () => {
  const expected = shellSecurityHeaders(origins);
  const names = Object.keys(expected);

  it('nginx (the shell image), on the page, the SPA fallback and the run-time document', async () => {
    for (const path of ['/', '/profile/deep/link', '/atrium.config.json', '/healthz']) {
      const response = await get(`${shellNginx}${path}`);
      expect(response.status, path).toBe(200);
      expect(normalised(pick(response, names)), path).toEqual(normalised(expected));
      expect(response.headers.get('strict-transport-security'), path).toBeNull();
    }
    const config = (await (await get(`${shellNginx}/atrium.config.json`)).json()) as {
      devOverrides: unknown;
      tracing: unknown;
    };
    expect(config.devOverrides).toBeNull();
    expect(config.tracing).toBeNull();
  });

  it('nginx with ATRIUM_OTLP_TRACES_URL lets the shell send spans there and says so in the config', async () => {
    const response = await get(`${tracedShellNginx}/`);
    expect(normalised(pick(response, names))).toEqual(
      normalised(shellSecurityHeaders({ ...origins, tracesUrl: TRACES_URL })),
    );
    const config = (await (await get(`${tracedShellNginx}/atrium.config.json`)).json()) as {
      tracing: unknown;
    };
    expect(config.tracing).toEqual({ otlpTracesUrl: TRACES_URL });
  });

  it('nginx with ATRIUM_DEV_OVERRIDE_ORIGINS allows those dev servers (and their sockets) and says so in the config', async () => {
    const response = await get(`${devShellNginx}/`);
    expect(normalised(pick(response, names))).toEqual(
      normalised(shellSecurityHeaders({ ...origins, devOverrideOrigins: DEV_ORIGINS })),
    );
    expect(response.headers.get('content-security-policy')).toContain('wss://dev.example.test:8443');
    const config = (await (await get(`${devShellNginx}/atrium.config.json`)).json()) as {
      devOverrides: unknown;
    };
    expect(config.devOverrides).toEqual({ allowedOrigins: DEV_ORIGINS });
  });

  it('the image refuses to start with a dev-override origin or a traces URL that is not http(s)', () => {
    expect(() => fillShellTemplate('javascript:alert(1)')).toThrow(/is not an http\(s\) origin/);
    expect(() => fillShellTemplate('', 'javascript:alert(1)')).toThrow(/is not an http\(s\) URL/);
    expect(() => fillShellTemplate('', "https://x.test/'; evil")).toThrow(/is not a URL/);
  });

  it('nginx adds Strict-Transport-Security only when the request came over TLS at the proxy', async () => {
    const overTls = await get(`${shellNginx}/`, { 'x-forwarded-proto': 'https' });
    expect(overTls.headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY);
    const plain = await get(`${shellNginx}/`, { 'x-forwarded-proto': 'http' });
    expect(plain.headers.get('strict-transport-security')).toBeNull();
  });

  it('the local shell server (npm start, browser tests)', async () => {
    for (const path of ['/', '/profile/deep/link', '/atrium.config.json']) {
      const response = await get(`${local(localShell)}${path}`);
      expect(pick(response, names), path).toEqual(expected);
    }
  });
});

describe("the shell's own files", () => {
  for (const [where, base] of [
    ['nginx (the shell image)', () => shellNginx],
    ['the local shell server', () => local(localShell)],
  ] as const) {
    it(`${where} sends a build file's brotli copy to a browser that accepts br, its gzip copy otherwise, cached for a year`, async () => {
      await expectPrecompressed(`${base()}/${SHELL_ASSET}`, SHELL_SCRIPT);
    });
  }

  for (const [where, base] of [
    ['nginx (the shell image)', () => shellNginx],
    ['the local shell server', () => local(localShell)],
  ] as const) {
    it(`${where} has its manifest revalidated on every read: the next build's replaces it`, async () => {
      for (const encoding of ['br', 'identity']) {
        const manifest = await rawGet(`${base()}/mf-manifest.json`, { 'accept-encoding': encoding });
        expect(manifest.headers['cache-control'], encoding).toBe('no-cache');
        expect(manifest.headers['content-type'], encoding).toMatch(/^application\/json/);
      }
      expect(await (await get(`${base()}/mf-manifest.json`)).text()).toBe(SHELL_MANIFEST);
    });
  }

  it("nginx (the shell image) sends the page's brotli copy, revalidated on every load, at any path", async () => {
    for (const path of ['/', '/index.html', '/profile/deep/link']) {
      const page = await rawGet(`${shellNginx}${path}`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect(page.headers['content-encoding'], path).toBe('br');
      expect(page.headers['content-type'], path).toMatch(/^text\/html/);
      expect(page.headers['cache-control'], path).toBe('no-cache');
      expect(brotliDecompressSync(page.body).toString(), path).toBe(SHELL_PAGE);
    }
  });
});

/**
 * What a browser gets of a precompressed, immutable file: the `.br` copy as it is when it accepts br (whatever
 * else it accepts), the `.gz` copy when it accepts gzip but not br, the file itself otherwise; each answer
 * cached for a year as immutable and varying by Accept-Encoding.
 */
async function expectPrecompressed(url: string, text: string): Promise<void> {
  const brotli = await rawGet(url, { 'accept-encoding': 'gzip, deflate, br, zstd' });
  expect(brotli.headers['content-encoding']).toBe('br');
  expect(brotliDecompressSync(brotli.body).toString()).toBe(text);
  const gzipped = await rawGet(url, { 'accept-encoding': 'gzip, deflate' });
  expect(gzipped.headers['content-encoding']).toBe('gzip');
  expect(gunzipSync(gzipped.body).toString()).toBe(text);
  const plain = await rawGet(url, {});
  expect(plain.headers['content-encoding']).toBeUndefined();
  expect(plain.body.toString()).toBe(text);
  for (const answer of [brotli, gzipped, plain]) {
    expect(answer.headers['cache-control']).toBe(IMMUTABLE);
    expect(answer.headers['content-type']).toMatch(/javascript/);
  }
  for (const answer of [brotli, gzipped]) expect(answer.headers['vary']).toMatch(/Accept-Encoding/);
}

describe('the release store', () => {
  const expected = releaseStoreSecurityHeaders();
  const names = Object.keys(expected);

  for (const [where, base] of [
    ['nginx (the store image)', () => storeNginx],
    ['the local store server', () => local(localStore)],
  ] as const) {
    it(`${where} serves releases with its security headers and CORS`, async () => {
      const response = await get(`${base()}/profile/1.0.0/remoteEntry.js`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('console.log("remote")');
      expect(pick(response, names)).toEqual(expected);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('content-type')).toMatch(/javascript/);
    });

    it(`${where} sends a release file's brotli copy to a browser that accepts br, its gzip copy otherwise, cached for a year`, async () => {
      await expectPrecompressed(`${base()}/profile/1.0.0/remoteEntry.js`, 'console.log("remote")');
    });

    it(`${where} serves no dotfile, at the root or deep in a release`, async () => {
      for (const path of ['/.env', '/profile/1.0.0/.git/config', '/profile/1.0.0/.git/']) {
        const response = await get(`${base()}${path}`);
        expect(response.status, path).toBe(404);
        expect(await response.text(), path).not.toMatch(/leaked|secret/);
      }
    });
  }

  it('nginx follows no link out of its folder and lets no path climb out of it', async () => {
    const link = await get(`${storeNginx}/profile/1.0.0/chunk.js`);
    expect(link.status).toBeGreaterThanOrEqual(400);
    expect(await link.text()).not.toContain('outside the store');
    // Nor to a brotli copy: the file itself is sent instead.
    const copy = await rawGet(`${storeNginx}/profile/1.0.0/linked.js`, { 'accept-encoding': 'br' });
    expect(copy.headers['content-encoding']).toBeUndefined();
    expect(copy.body.toString()).toBe('console.log("linked")');
    for (const path of [
      '/../outside.txt',
      '/profile/%2e%2e/%2e%2e/outside.txt',
      '/profile/..%2f..%2foutside.txt',
    ]) {
      const response = await get(`${storeNginx}${path}`);
      expect(response.status, path).toBeGreaterThanOrEqual(400);
      expect(await response.text(), path).not.toContain('outside the store');
    }
  });

  it('nginx lets no cache keep a missing release file, nor label its error page brotli', async () => {
    for (const path of ['/profile/1.0.0/missing.js', '/profile/1.0.0/missing.js.br']) {
      const missing = await rawGet(`${storeNginx}${path}`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect(missing.headers['cache-control'], path).toBeUndefined();
      expect(missing.headers['content-encoding'], path).toBeUndefined();
      expect(missing.body.toString(), path).toMatch(/404/);
    }
  });

  it("nginx sends a manifest's brotli copy revalidated on every load, like the manifest", async () => {
    const manifest = await rawGet(`${storeNginx}/profile/1.0.0/mf-manifest.json`, {
      'accept-encoding': 'br',
    });
    expect(manifest.headers['content-encoding']).toBe('br');
    expect(manifest.headers['content-type']).toMatch(/^application\/json/);
    expect(manifest.headers['cache-control']).toBe('no-cache');
    expect(brotliDecompressSync(manifest.body).toString()).toBe('{}');
  });

  it('nginx sends Strict-Transport-Security only over TLS', async () => {
    const overTls = await get(`${storeNginx}/profile/1.0.0/mf-manifest.json`, {
      'x-forwarded-proto': 'https',
    });
    expect(overTls.headers.get('strict-transport-security')).toBe(STRICT_TRANSPORT_SECURITY);
    expect(overTls.headers.get('cache-control')).toBe('no-cache');
    const plain = await get(`${storeNginx}/profile/1.0.0/mf-manifest.json`);
    expect(plain.headers.get('strict-transport-security')).toBeNull();
  });
});
