// The headers as a browser receives them: the shell's and the release store's nginx configurations run in a
// real nginx (as their images run them, with the shell template filled like the image's envsubst step), and the
// local servers of `npm start` and the browser tests, each on a free loopback port.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { type IncomingHttpHeaders, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveReleaseStore, serveShell, type RunningServer } from '../dev/static-servers.ts';
import {
  NGINX_CONFIGS,
  releaseStoreSecurityHeaders,
  shellSecurityHeaders,
  STRICT_TRANSPORT_SECURITY,
} from '../../shell/app/deploy/security-headers.ts';

const [shellConfig, releaseStoreConfig] = NGINX_CONFIGS;
const work = mkdtempSync(join(tmpdir(), 'atrium-headers-'));
const stoppers: (() => Promise<void> | void)[] = [];

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `conf` (a server block) in nginx on a free port with `root`, the way the image would. */
async function runNginx(name: string, conf: string, root: string): Promise<string> {
  const port = await freePort();
  const prefix = join(work, `nginx-${name}`);
  mkdirSync(prefix, { recursive: true });
  const server = conf
    .replace(/^ {2}listen \d+;$/m, `  listen 127.0.0.1:${port};`)
    .replace(/^ {2}root \/usr\/share\/nginx\/html;$/m, `  root ${root};`);
  writeFileSync(join(prefix, 'server.conf'), server);
  writeFileSync(
    join(prefix, 'nginx.conf'),
    [
      `pid ${prefix}/nginx.pid;`,
      'error_log stderr;',
      'events {}',
      'http {',
      '  include /etc/nginx/mime.types;',
      '  access_log off;',
      `  client_body_temp_path ${prefix}/body;`,
      `  include ${prefix}/server.conf;`,
      '}',
    ].join('\n'),
  );
  const nginx: ChildProcess = spawn(
    'nginx',
    ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  nginx.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  stoppers.push(() => {
    nginx.kill('SIGTERM');
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (nginx.exitCode !== null) throw new Error(`nginx ${name} exited: ${stderr}`);
    try {
      await fetch(url);
      return url;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`nginx ${name} did not answer on ${url}: ${stderr}`);
}

const origins = {
  apiUrl: 'https://atrium.test',
  authority: 'https://auth.test/realms/atrium',
  remoteOrigins: ['https://releases.test'],
};
const env: Record<string, string> = {
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

/**
 * The shell's template filled as the image does it: the entrypoint sources 15-atrium-dev-overrides.envsh and
 * 16-atrium-tracing.envsh (run here by the machine's sh), then envsubst replaces the variables.
 */
function fillShellTemplate(devOverrideOrigins: string, tracesUrl = ''): string {
  const derived = spawnSync(
    'sh',
    [
      '-c',
      `. "$1" && . "$2" && printf '%s\\n%s\\n%s' "$ATRIUM_DEV_OVERRIDES_JSON" "$ATRIUM_DEV_OVERRIDE_SOCKETS" "$ATRIUM_TRACING_JSON"`,
      'sh',
      ENVSH,
      TRACING_ENVSH,
    ],
    {
      encoding: 'utf8',
      env: {
        ...process.env,
        ATRIUM_DEV_OVERRIDE_ORIGINS: devOverrideOrigins,
        ATRIUM_OTLP_TRACES_URL: tracesUrl,
      },
    },
  );
  if (derived.status !== 0) throw new Error(`${ENVSH} or ${TRACING_ENVSH} failed: ${derived.stderr}`);
  const [json, sockets, tracing] = derived.stdout.split('\n');
  const values: Record<string, string> = {
    ...env,
    ATRIUM_DEV_OVERRIDE_ORIGINS: devOverrideOrigins,
    ATRIUM_DEV_OVERRIDES_JSON: json ?? '',
    ATRIUM_DEV_OVERRIDE_SOCKETS: sockets ?? '',
    ATRIUM_OTLP_TRACES_URL: tracesUrl,
    ATRIUM_TRACING_JSON: tracing ?? '',
  };
  return readFileSync(shellConfig.path, 'utf8').replace(
    /\$\{([A-Z_]+)\}/g,
    (whole, name: string) => values[name] ?? whole,
  );
}
const ENVSH = join(import.meta.dirname, '../../shell/app/deploy/15-atrium-dev-overrides.envsh');
const TRACING_ENVSH = join(import.meta.dirname, '../../shell/app/deploy/16-atrium-tracing.envsh');
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
let localStore: RunningServer;

beforeAll(async () => {
  chmodSync(work, 0o755); // nginx workers run as an unprivileged user
  const shellRoot = join(work, 'shell');
  mkdirSync(shellRoot);
  writeFileSync(join(shellRoot, 'index.html'), '<!doctype html><title>shell</title>');
  const storeRoot = join(work, 'releases');
  mkdirSync(join(storeRoot, 'profile/1.0.0/.git'), { recursive: true });
  writeFileSync(join(storeRoot, 'profile/1.0.0/remoteEntry.js'), 'console.log("remote")');
  writeFileSync(join(storeRoot, 'profile/1.0.0/remoteEntry.js.gz'), gzipSync('console.log("remote")'));
  writeFileSync(join(storeRoot, 'profile/1.0.0/mf-manifest.json'), '{}');
  writeFileSync(join(storeRoot, 'profile/1.0.0/.git/config'), '[core] secret');
  writeFileSync(join(storeRoot, '.env'), 'ATRIUM_DEPLOYER_SECRET=leaked');
  writeFileSync(join(work, 'outside.txt'), 'outside the store');
  symlinkSync(join(work, 'outside.txt'), join(storeRoot, 'profile/1.0.0/chunk.js'));

  shellNginx = await runNginx('shell', fillShellTemplate(''), shellRoot);
  devShellNginx = await runNginx('shell-dev', fillShellTemplate(DEV_ORIGINS.join(' ')), shellRoot);
  tracedShellNginx = await runNginx('shell-traced', fillShellTemplate('', TRACES_URL), shellRoot);
  storeNginx = await runNginx('store', readFileSync(releaseStoreConfig.path, 'utf8'), storeRoot);
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

    it(`${where} sends the release's gzip copy as it is to a browser that accepts gzip`, async () => {
      const url = `${base()}/profile/1.0.0/remoteEntry.js`;
      const gzipped = await rawGet(url, { 'accept-encoding': 'gzip' });
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect(gzipped.headers['vary']).toMatch(/Accept-Encoding/);
      expect(gunzipSync(gzipped.body).toString()).toBe('console.log("remote")');
      const plain = await rawGet(url, {});
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.toString()).toBe('console.log("remote")');
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
