// The shell's and the release store's nginx configurations, run by the machine's nginx as their images run them:
// the same server block, and the shell's template filled the way the image's entrypoint fills it. The
// integration tier checks their headers this way (infra/checks/serving-headers.int-spec.ts) and the shell
// benchmark serves through them, so both see what production sends: caching, compression, security headers.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NGINX_CONFIGS } from '@atrium/shell/security-headers';
import { findNginx } from './system-parts.ts';
import { fromRoot } from '../lib/paths.ts';
import { waitUntil } from '../lib/wait.ts';

const [shellConfig, releaseStoreConfig] = NGINX_CONFIGS;
/** The shell image's server block, a template the image's entrypoint fills from the environment. */
export const SHELL_SITE_TEMPLATE = shellConfig.path;
/** The release store image's server block. */
export const RELEASE_STORE_SITE = releaseStoreConfig.path;
/** Sourced by the shell image's entrypoint, in this order, before it fills the template. */
export const SHELL_ENVSH = [
  fromRoot('shell/app/deploy/15-atrium-dev-overrides.envsh'),
  fromRoot('shell/app/deploy/16-atrium-tracing.envsh'),
] as const;

/** The shell image's environment: its Dockerfile's ENV, which compose and Kubernetes set per deployment. */
export interface ShellImageEnv {
  readonly ATRIUM_OIDC_AUTHORITY: string;
  readonly ATRIUM_OIDC_CLIENT_ID: string;
  readonly ATRIUM_API_URL: string;
  readonly ATRIUM_REMOTES_URL: string;
  readonly ATRIUM_REMOTE_TIMEOUT_MS: string;
  readonly ATRIUM_REMOTE_ORIGINS: string;
  readonly ATRIUM_DEV_OVERRIDE_ORIGINS: string;
  /** Empty: tracing off. */
  readonly ATRIUM_OTLP_TRACES_URL: string;
}

/**
 * The shell's template filled as the image does it: the entrypoint sources 15-atrium-dev-overrides.envsh and
 * 16-atrium-tracing.envsh (run here by the machine's sh), then envsubst replaces the variables it knows and
 * leaves nginx's own (`$uri`).
 * Throws what the script says when it refuses the environment.
 */
export function fillShellTemplate(env: ShellImageEnv): string {
  const derived = spawnSync(
    'sh',
    [
      '-c',
      `. "$1" && . "$2" && printf '%s\\n%s\\n%s' "$ATRIUM_DEV_OVERRIDES_JSON" "$ATRIUM_DEV_OVERRIDE_SOCKETS" "$ATRIUM_TRACING_JSON"`,
      'sh',
      ...SHELL_ENVSH,
    ],
    { encoding: 'utf8', env: { ...process.env, ...env } },
  );
  if (derived.status !== 0) throw new Error(`${SHELL_ENVSH.join(' or ')} failed: ${derived.stderr}`);
  const [json, sockets, tracing] = derived.stdout.split('\n');
  const values: Record<string, string> = {
    ...env,
    ATRIUM_DEV_OVERRIDES_JSON: json ?? '',
    ATRIUM_DEV_OVERRIDE_SOCKETS: sockets ?? '',
    ATRIUM_TRACING_JSON: tracing ?? '',
  };
  return readFileSync(SHELL_SITE_TEMPLATE, 'utf8').replace(
    /\$\{([A-Z_]+)\}/g,
    (whole, name: string) => values[name] ?? whole,
  );
}

export interface ImageSite {
  /** `http://<host>:<port>`. */
  readonly url: string;
  stop(): Promise<void>;
}

export interface ImageSiteOptions {
  /** Names the site's folder under `workDir` and its errors. */
  readonly name: string;
  /** The server block, as the image holds it (filled, for the shell). */
  readonly site: string;
  /** The folder served in place of the image's /usr/share/nginx/html; nginx's workers must be able to read it. */
  readonly root: string;
  readonly port: number;
  /** Where nginx listens; loopback only. */
  readonly host?: string;
  /** Where nginx keeps its configuration, pid and temporary files. */
  readonly workDir: string;
}

/**
 * Runs a server block in the machine's nginx in the images' way: on `host:port` instead of the image's port,
 * serving `root`, inside an http block like the images' nginx.conf. Resolves once it answers.
 */
export async function runImageSite(options: ImageSiteOptions): Promise<ImageSite> {
  const nginx = findNginx();
  if (nginx === undefined) {
    throw new Error(
      'nginx is missing (`npm test` installs it as root or through `sudo -n`; else: `sudo apt-get install nginx-light`).',
    );
  }
  const host = options.host ?? '127.0.0.1';
  const prefix = join(options.workDir, `nginx-${options.name}`);
  mkdirSync(prefix, { recursive: true });
  const listen = /^ {2}listen \d+;$/m;
  const root = /^ {2}root \/usr\/share\/nginx\/html;$/m;
  if (!listen.test(options.site) || !root.test(options.site)) {
    throw new Error(`the ${options.name} site has no "listen <port>;" or "root /usr/share/nginx/html;" line`);
  }
  const server = options.site
    .replace(listen, `  listen ${host}:${options.port};`)
    .replace(root, `  root ${options.root};`);
  writeFileSync(join(prefix, 'server.conf'), server);
  writeFileSync(
    join(prefix, 'nginx.conf'),
    [
      `pid ${prefix}/nginx.pid;`,
      'error_log stderr;',
      'events {}',
      'http {',
      '  include /etc/nginx/mime.types;',
      '  default_type application/octet-stream;',
      '  sendfile on;',
      '  access_log off;',
      `  client_body_temp_path ${prefix}/body;`,
      `  include ${prefix}/server.conf;`,
      '}',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(
    nginx,
    ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-g', 'daemon off;'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await exited;
  };
  const url = `http://${host}:${options.port}`;
  try {
    await waitUntil(
      () =>
        fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
          () => true,
          () => undefined,
        ),
      {
        timeoutMs: 10_000,
        intervalMs: 100,
        isAlive: () => child.exitCode === null,
        failure: (reason) =>
          new Error(
            reason === 'exited'
              ? `nginx ${options.name} exited: ${stderr}`
              : `nginx ${options.name} did not answer on ${url}: ${stderr}`,
          ),
      },
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
