import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureKeycloak } from '../keycloak/keycloak.ts';
import {
  type ClientCredentials,
  createRemotes,
  listRemotePackages,
  platformCredentialsFromEnv,
  publishRelease,
  type ReleaseTarget,
  targetForOwner,
} from '@atrium/release-cli/publish-release';
import { ReleaseError } from '@atrium/release-cli/release-error';
import { TypeContractError } from '@atrium/release-cli/release-types';
import { fingerprint, ReleaseConflictError } from '@atrium/release-cli/release-store';
import { getDeployerToken, VersionExistsError } from '@atrium/release-cli/registry-client';
import { startApiProxy } from './api-proxy.ts';
import { fillShellTemplate, RELEASE_STORE_SITE, runImageSite } from './image-nginx.ts';
import { startMailServer } from './mail-server.ts';
import { run, startProcess, type ManagedProcess } from '../lib/processes.ts';
import { waitForHttp } from '../lib/wait.ts';
import { serveReleaseStore, serveShell, type RunningServer } from './static-servers.ts';
import type { components } from '@atrium/sdk/api-types';
import { dataDir, repoRoot } from '../lib/paths.ts';

/**
 * Where the local stack lets developers load a remote's dev build from: each remote's dev server
 * (`npm run dev --workspace remotes/<name>` serves on `http://localhost:<atrium.devPort>`), and no other port of
 * this machine. These are the API's DEV_OVERRIDE_ORIGINS and the shell's `devOverrides.allowedOrigins`, and so
 * script sources of its Content-Security-Policy: `http://localhost:*` would let the API, Keycloak and the mail
 * inbox, all on localhost, serve the shell scripts. A remote added while the stack runs is allowed at its next
 * start. Deployed shells have none unless an operator configures them.
 */
export function devServerOrigins(remoteDirs: readonly string[]): string[] {
  return remoteDirs.map((dir) => {
    const { atrium } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      atrium?: { devPort?: unknown };
    };
    const port = atrium?.devPort;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`${join(dir, 'package.json')} names no dev server port (atrium.devPort)`);
    }
    return `http://localhost:${port}`;
  });
}

export interface StackOptions {
  /** Where the API keeps its data; SQLite under .data/ unless set. */
  databaseUrl?: string;
  /** Keycloak's own data folder; a fresh folder means a freshly imported realm. */
  keycloakDataDir?: string;
  apiPort?: number;
  /**
   * API processes to run. Above 1 they listen on the ports after `apiPort` behind a round-robin nginx on
   * `apiPort`, as replicas behind an ingress would: the browser tests use 2 to prove the API is stateless.
   */
  apiReplicas?: number;
  shellPort?: number;
  releasePort?: number;
  /** The release store's folder; ATRIUM_RELEASE_STORE_DIR, else `.data/releases` (tests use a fresh one). */
  releasesDir?: string;
  /** Where the mail server keeps the mails it receives; `.data/mail` unless set (tests use a fresh one). */
  mailDir?: string;
  /** SMTP port of the mail server Keycloak sends through; default 1025. */
  smtpPort?: number;
  /** Port of the mail server's web inbox and REST API; default 1080. */
  mailWebPort?: number;
  /** How long the shell waits for one remote before showing its fallback (shell default 10 s). */
  remoteTimeoutMs?: number;
  /**
   * What serves the shell and the release store: `node` (the default: `npm start`, the browser tests) or `nginx`,
   * their images' nginx configurations in the machine's nginx, as production serves them (infra/dev/image-nginx.ts;
   * the shell benchmark). nginx's workers must be able to read `releasesDir` and `shellDir`.
   */
  staticServers?: 'node' | 'nginx';
  /** The shell build to serve; `shell/app/dist` unless set. */
  shellDir?: string;
  /**
   * Further API settings (services/api/src/config/env.schema.ts), over the stack's own: e.g. the browser tests'
   * lower ROLLBACK_MIN_SAMPLES, so a broken canary is rolled back after a journey's worth of loads.
   */
  apiEnv?: NodeJS.ProcessEnv;
  log?: (line: string) => void;
}

/** A bundled remote as published at start-up: the registry's `RemoteEntry`, in part. */
export type RemoteDescriptor = Pick<
  components['schemas']['RemoteEntry'],
  'name' | 'title' | 'path' | 'entry'
>;

export interface Stack {
  urls: { shell: string; api: string; keycloak: string; issuer: string; releases: string; mail: string };
  /** The bundled remotes as published at start-up. */
  remotes: RemoteDescriptor[];
  /** Where the release CLI must publish to reach this stack. */
  releaseTarget: ReleaseTarget;
  stop(): Promise<void>;
}

/**
 * Starts the whole platform from built artefacts: a mail server, Keycloak, the API, the release store with
 * the bundled remotes published into it, and the shell. Used by `npm start` and by the browser tests.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const log = options.log ?? ((line: string) => console.log(line));
  const apiPort = options.apiPort ?? 3000;
  const shellPort = options.shellPort ?? 4000;
  const releasePort = options.releasePort ?? 4100;
  const devOverrideOrigins = devServerOrigins(listRemotePackages(repoRoot).map((remote) => remote.dir));
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stoppers.reverse()) await stopOne().catch(() => undefined);
  };

  try {
    const mail = await startMailServer({
      mailDir: options.mailDir ?? join(dataDir, 'mail'),
      ...(options.smtpPort !== undefined ? { smtpPort: options.smtpPort } : {}),
      ...(options.mailWebPort !== undefined ? { webPort: options.mailWebPort } : {}),
    });
    stoppers.push(() => mail.stop());
    log(`mail: SMTP on ${mail.smtp.host}:${mail.smtp.port}, inbox at ${mail.url}`);

    const keycloak = await ensureKeycloak({
      ...(options.keycloakDataDir ? { dataDir: options.keycloakDataDir } : {}),
      // Filled into the realm's smtpServer at import: verification and password-reset mails go to this inbox,
      // whatever ATRIUM_SMTP_* the environment names for real deployments.
      env: {
        ATRIUM_SMTP_HOST: mail.smtp.host,
        ATRIUM_SMTP_PORT: String(mail.smtp.port),
        ATRIUM_SMTP_AUTH: 'false',
        ATRIUM_SMTP_STARTTLS: 'false',
        ATRIUM_SMTP_SSL: 'false',
      },
      log: (line) => log(`keycloak: ${line}`),
    });
    stoppers.push(() => keycloak.stop());

    const apiDir = join(repoRoot, 'services/api');
    const apiEnv: NodeJS.ProcessEnv = {
      // A developer's machine: the realm's well-known development secrets are accepted (and only here).
      NODE_ENV: 'development',
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      OIDC_ISSUER_URL: keycloak.issuer,
      OIDC_AUDIENCE: process.env.OIDC_AUDIENCE ?? 'atrium-api',
      DATABASE_URL: options.databaseUrl ?? process.env.DATABASE_URL ?? `sqlite:${join(dataDir, 'atrium.db')}`,
      CORS_ORIGINS: `http://localhost:${shellPort}`,
      // What the shell calls (behind the proxy when there are replicas): every replica checks DPoP proofs' htu against it.
      API_PUBLIC_URL: `http://localhost:${apiPort}`,
      ALLOWED_REMOTE_ORIGINS: `http://localhost:${releasePort}`,
      // The API's service account at Keycloak: the same secret the realm was imported with.
      KEYCLOAK_ADMIN_CLIENT_ID: process.env.KEYCLOAK_ADMIN_CLIENT_ID ?? 'atrium-account-admin',
      KEYCLOAK_ADMIN_CLIENT_SECRET:
        process.env.KEYCLOAK_ADMIN_CLIENT_SECRET ??
        process.env.ATRIUM_ACCOUNT_ADMIN_SECRET ??
        'atrium-account-admin-dev-secret',
      KEYCLOAK_EVENTS_POLL_SECONDS: process.env.KEYCLOAK_EVENTS_POLL_SECONDS ?? '5',
      // Developers (role atrium-developer) may load a remote from a dev server on this machine.
      DEV_OVERRIDE_ORIGINS: devOverrideOrigins.join(','),
      // What the shell served below provides: releases are checked against it (the shell is served before the
      // bundled remotes are published).
      SHELL_MANIFEST_URL: `http://localhost:${shellPort}/mf-manifest.json`,
      ...options.apiEnv,
    };
    log('api: applying migrations…');
    await run('node', ['dist/database/migrate.js'], { cwd: apiDir, env: apiEnv, quiet: true });
    const replicas = options.apiReplicas ?? 1;
    const replicaPorts =
      replicas > 1 ? Array.from({ length: replicas }, (_, index) => apiPort + 1 + index) : [apiPort];
    for (const [index, port] of replicaPorts.entries()) {
      const logFile = join(dataDir, replicas > 1 ? `logs/api-${index + 1}.log` : 'logs/api.log');
      const api: ManagedProcess = startProcess({
        name: `api-${index + 1}`,
        command: 'node',
        args: ['--enable-source-maps', 'dist/main.js'],
        cwd: apiDir,
        env: { ...apiEnv, PORT: String(port) },
        logFile,
      });
      stoppers.push(() => api.stop());
      await waitForHttp(`http://localhost:${port}/api/health/ready`, {
        timeoutMs: 60_000,
        isAlive: () => api.child.exitCode === null,
        hint: `See ${logFile}. Is port ${port} free (\`ss -ltnp 'sport = :${port}'\`)?`,
      });
    }
    if (replicas > 1) {
      const proxy = await startApiProxy({
        port: apiPort,
        upstreamPorts: replicaPorts,
        workDir: join(dataDir, 'api-proxy'),
      });
      stoppers.push(() => proxy.stop());
      log(`api: ${replicas} processes (ports ${replicaPorts.join(', ')}) behind a round-robin proxy`);
    }
    const apiUrl = `http://localhost:${apiPort}`;
    log(`api: ready at ${apiUrl}`);

    // The release CLI reads the same variable, so tests that publish through it reach this store.
    const releasesDir =
      options.releasesDir ?? process.env.ATRIUM_RELEASE_STORE_DIR ?? join(dataDir, 'releases');
    mkdirSync(releasesDir, { recursive: true });
    const nginx = options.staticServers === 'nginx';
    const nginxDir = join(dataDir, 'image-nginx');
    let releasesUrl: string;
    if (nginx) {
      const releaseStore = await runImageSite({
        name: 'release-store',
        site: readFileSync(RELEASE_STORE_SITE, 'utf8'),
        root: releasesDir,
        port: releasePort,
        workDir: nginxDir,
      });
      stoppers.push(() => releaseStore.stop());
      releasesUrl = `http://localhost:${releasePort}`;
    } else {
      const releaseStore: RunningServer = await serveReleaseStore({
        dir: releasesDir,
        port: releasePort,
        host: 'localhost',
      });
      stoppers.push(() => releaseStore.close());
      releasesUrl = releaseStore.url;
    }
    log(`releases: serving ${releasesDir} at ${releasesUrl}${nginx ? " (the store image's nginx)" : ''}`);

    const releaseTarget: ReleaseTarget = {
      storeDir: releasesDir,
      storeUrl: releasesUrl,
      apiUrl,
      issuer: keycloak.issuer,
      clientId: 'atrium-deployer',
      clientSecret: process.env.ATRIUM_DEPLOYER_SECRET ?? 'atrium-deployer-dev-secret',
    };
    // Tracing: with an OTLP endpoint in the environment (OTEL_EXPORTER_OTLP_ENDPOINT, ...), which the API
    // inherits, the shell sends its spans to the same receiver (on this machine the browser reaches it by the same
    // URL), resolved by the API's own configuration. The receiver must allow the shell's origin (CORS).
    const { loadConfig } = (await import(pathToFileURL(join(apiDir, 'dist/config/env.schema.js')).href)) as {
      loadConfig: (env: NodeJS.ProcessEnv) => { tracing?: { tracesUrl: string } | undefined };
    };
    const tracesUrl = loadConfig({ ...process.env, ...apiEnv }).tracing?.tracesUrl;
    if (tracesUrl) log(`tracing: the API and the shell send spans to ${tracesUrl}`);
    const shellDir = options.shellDir ?? join(repoRoot, 'shell/app/dist');
    let shellUrl: string;
    if (nginx) {
      // The shell image's template, filled from the environment the image would get.
      const shell = await runImageSite({
        name: 'shell',
        site: fillShellTemplate({
          ATRIUM_OIDC_AUTHORITY: keycloak.issuer,
          ATRIUM_OIDC_CLIENT_ID: 'atrium-shell',
          ATRIUM_API_URL: apiUrl,
          ATRIUM_REMOTES_URL: `${apiUrl}/api/remotes`,
          ATRIUM_REMOTE_TIMEOUT_MS: String(options.remoteTimeoutMs ?? 10_000),
          ATRIUM_REMOTE_ORIGINS: releasesUrl,
          ATRIUM_DEV_OVERRIDE_ORIGINS: devOverrideOrigins.join(' '),
          ATRIUM_OTLP_TRACES_URL: tracesUrl ?? '',
        }),
        root: shellDir,
        port: shellPort,
        workDir: nginxDir,
      });
      stoppers.push(() => shell.stop());
      shellUrl = `http://localhost:${shellPort}`;
    } else {
      const shell = await serveShell({
        dir: shellDir,
        port: shellPort,
        host: 'localhost',
        remoteOrigins: [releasesUrl],
        documents: {
          '/atrium.config.json': () => ({
            oidc: { authority: keycloak.issuer, clientId: 'atrium-shell' },
            apiBaseUrl: apiUrl,
            remotesUrl: `${apiUrl}/api/remotes`,
            ...(options.remoteTimeoutMs !== undefined ? { remoteTimeoutMs: options.remoteTimeoutMs } : {}),
            devOverrides: { allowedOrigins: devOverrideOrigins },
            ...(tracesUrl ? { tracing: { otlpTracesUrl: tracesUrl } } : {}),
          }),
        },
      });
      stoppers.push(() => shell.close());
      shellUrl = shell.url;
    }
    log(`shell: ready at ${shellUrl}${nginx ? " (the shell image's nginx)" : ''}`);
    // After the shell: the API checks each release against the shell's manifest (SHELL_MANIFEST_URL).
    const remotes = await publishBundledRemotes(releaseTarget, platformCredentialsFromEnv(), log);

    return {
      urls: {
        shell: shellUrl,
        api: apiUrl,
        keycloak: keycloak.url,
        issuer: keycloak.issuer,
        releases: releasesUrl,
        mail: mail.url,
      },
      remotes,
      releaseTarget,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Creates every bundled remote that the registry does not know yet, as the platform's client (an
 * administrator's act, with the settings and owner in its package.json), then publishes its build through
 * the release CLI's code path as its owner: the admin console as atrium-platform, the others as
 * atrium-deployer. A version the registry does not know yet is activated (first run); one that is already
 * registered is left as it is, so a rollback made in the admin console survives a restart.
 */
async function publishBundledRemotes(
  target: ReleaseTarget,
  platform: ClientCredentials,
  log: (line: string) => void,
): Promise<RemoteDescriptor[]> {
  const packages = listRemotePackages(repoRoot);
  try {
    await createRemotes(packages, target, platform, (line) => log(`release: ${line}`));
  } catch (error) {
    if (!(error instanceof ReleaseError)) throw error;
    // The rest of the platform still starts: the shell shows what the registry lists.
    log(`release: remotes NOT created: ${error.message}`);
  }
  const remotes: RemoteDescriptor[] = [];
  for (const remote of packages) {
    const { atrium } = remote;
    const ownerTarget = targetForOwner(target, atrium.owner, platform);
    const publish = (version: string, build: boolean, breaking = false) =>
      publishRelease({
        remote,
        target: ownerTarget,
        version,
        build,
        activate: true,
        breaking,
        log: (line) => log(`release ${atrium.remote}: ${line}`),
      });
    let version = remote.version;
    try {
      await publish(version, false);
    } catch (error) {
      const unverifiable =
        error instanceof VersionExistsError &&
        !(await hasBothHashes(target, platform, atrium.remote, version));
      if (error instanceof VersionExistsError && !unverifiable) {
        log(
          `release ${atrium.remote}: ${atrium.remote} ${version} is already registered; activation left as it is`,
        );
      } else if (error instanceof ReleaseConflictError || unverifiable) {
        // The local build differs from the release already stored under this version (the code changed since
        // it was published), or that version was registered before both integrity hashes were required and is
        // never served. Releases are immutable, so the local build goes out as a development prerelease named
        // after its contents, and becomes the active one: `npm start` always shows the code you have.
        version = `${remote.version}-dev.${fingerprint(join(remote.dir, 'dist')).slice(0, 8)}`;
        log(
          `release ${atrium.remote}: ${
            unverifiable
              ? `${remote.version} was registered without integrity hashes`
              : `the local build differs from the stored ${remote.version}`
          }; publishing it as ${version}`,
        );
        try {
          await publish(version, true).catch(async (typesError: unknown) => {
            if (!(typesError instanceof TypeContractError)) throw typesError;
            // Its types break the active release's: said, and published as breaking all the same, since the
            // stack shows the code you have.
            log(
              `release ${atrium.remote}: ${typesError.message.split('\n')[0]?.replace(/:$/, '')}; publishing it as breaking`,
            );
            await publish(version, true, true);
          });
        } catch (retryError) {
          if (!(retryError instanceof ReleaseError)) throw retryError;
          if (!(retryError instanceof VersionExistsError)) {
            log(`release ${atrium.remote}: NOT published: ${retryError.message}`);
            continue;
          }
          log(
            `release ${atrium.remote}: ${atrium.remote} ${version} is already registered; activation left as it is`,
          );
        }
      } else if (error instanceof ReleaseError) {
        // The rest of the platform still starts: the shell shows what the registry lists.
        log(`release ${atrium.remote}: NOT published: ${error.message}`);
        continue;
      } else {
        throw error;
      }
    }
    remotes.push({
      name: atrium.remote,
      title: atrium.title,
      path: atrium.route,
      entry: `${target.storeUrl}/${atrium.remote}/${version}/mf-manifest.json`,
    });
  }
  return remotes;
}

/**
 * Whether the registered `version` of a remote has both integrity hashes, read as the platform's client (an
 * administrator). A `.data/` from before they were required holds versions without them.
 */
async function hasBothHashes(
  target: ReleaseTarget,
  platform: ClientCredentials,
  remote: string,
  version: string,
): Promise<boolean> {
  let response: Response;
  try {
    const token = await getDeployerToken({ issuer: target.issuer, ...platform });
    response = await fetch(`${target.apiUrl}/api/remotes/${encodeURIComponent(remote)}/versions`, {
      headers: { Authorization: `Bearer ${token}` },
    });
  } catch (error) {
    if (!(error instanceof ReleaseError) && !(error instanceof TypeError)) throw error;
    return true; // cannot tell (e.g. a realm without atrium-platform): leave the version as it is
  }
  if (!response.ok) return true; // nothing to repair that we can see; leave the version as it is
  const { versions } = (await response.json()) as components['schemas']['VersionHistory'];
  const registered = versions.find((entry) => entry.version === version);
  return !registered || (registered.integrity !== null && registered.manifestIntegrity !== null);
}
