import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensureKeycloak } from '../keycloak/keycloak.ts';
import { run, startProcess, waitForHttp, type ManagedProcess } from './processes.ts';
import { serveReleaseStore, serveShell, type RunningServer } from './static-servers.ts';

export const repoRoot = resolve(import.meta.dirname, '../..');

export interface StackOptions {
  /** Where the API keeps its data; SQLite under .data/ unless set. */
  databaseUrl?: string;
  /** Keycloak's own data folder; a fresh folder means a freshly imported realm. */
  keycloakDataDir?: string;
  apiPort?: number;
  shellPort?: number;
  releasePort?: number;
  log?: (line: string) => void;
}

export interface RemoteDescriptor {
  name: string;
  title: string;
  path: string;
  entry: string;
}

export interface Stack {
  urls: { shell: string; api: string; keycloak: string; issuer: string; releases: string };
  remotes: RemoteDescriptor[];
  stop(): Promise<void>;
}

interface RemotePackage {
  version: string;
  atrium: { remote: string; title: string; route: string; navOrder: number };
}

function readRemotePackages(): { dir: string; pkg: RemotePackage }[] {
  const remotesDir = join(repoRoot, 'remotes');
  return readdirSync(remotesDir)
    .map((name) => join(remotesDir, name))
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => ({
      dir,
      pkg: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as RemotePackage,
    }))
    .sort((a, b) => a.pkg.atrium.navOrder - b.pkg.atrium.navOrder);
}

/**
 * Starts the whole platform from built artefacts: Keycloak, the API, the release store with the bundled
 * remotes published into it, and the shell. Used by `npm start` and by the browser tests.
 */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const log = options.log ?? ((line: string) => console.log(line));
  const apiPort = options.apiPort ?? 3000;
  const shellPort = options.shellPort ?? 4000;
  const releasePort = options.releasePort ?? 4100;
  const dataDir = join(repoRoot, '.data');
  const stoppers: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const stopOne of stoppers.reverse()) await stopOne().catch(() => undefined);
  };

  try {
    const keycloak = await ensureKeycloak({
      ...(options.keycloakDataDir ? { dataDir: options.keycloakDataDir } : {}),
      log: (line) => log(`keycloak: ${line}`),
    });
    stoppers.push(() => keycloak.stop());

    const apiDir = join(repoRoot, 'services/api');
    const apiEnv: NodeJS.ProcessEnv = {
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      OIDC_ISSUER_URL: keycloak.issuer,
      OIDC_AUDIENCE: process.env.OIDC_AUDIENCE ?? 'atrium-api',
      DATABASE_URL: options.databaseUrl ?? process.env.DATABASE_URL ?? `sqlite:${join(dataDir, 'atrium.db')}`,
      CORS_ORIGINS: `http://localhost:${shellPort}`,
    };
    log('api: applying migrations…');
    await run('node', ['dist/database/migrate.js'], { cwd: apiDir, env: apiEnv, quiet: true });
    const api: ManagedProcess = startProcess({
      name: 'api',
      command: 'node',
      args: ['--enable-source-maps', 'dist/main.js'],
      cwd: apiDir,
      env: apiEnv,
      logFile: join(dataDir, 'logs/api.log'),
    });
    stoppers.push(() => api.stop());
    const apiUrl = `http://localhost:${apiPort}`;
    await waitForHttp(`${apiUrl}/api/health/ready`, {
      timeoutMs: 60_000,
      isAlive: () => api.child.exitCode === null,
      hint: `See ${join(dataDir, 'logs/api.log')}. Is port ${apiPort} free (\`ss -ltnp 'sport = :${apiPort}'\`)?`,
    });
    log(`api: ready at ${apiUrl}`);

    // Publish the bundled remotes into the local release store, one immutable folder per version.
    const releasesDir = join(dataDir, 'releases');
    const releasesUrl = `http://localhost:${releasePort}`;
    const remotes: RemoteDescriptor[] = [];
    for (const { dir, pkg } of readRemotePackages()) {
      const target = join(releasesDir, pkg.atrium.remote, pkg.version);
      rmSync(target, { recursive: true, force: true });
      mkdirSync(target, { recursive: true });
      cpSync(join(dir, 'dist'), target, { recursive: true });
      remotes.push({
        name: pkg.atrium.remote,
        title: pkg.atrium.title,
        path: pkg.atrium.route,
        entry: `${releasesUrl}/${pkg.atrium.remote}/${pkg.version}/mf-manifest.json`,
      });
    }
    const releaseStore: RunningServer = await serveReleaseStore({
      dir: releasesDir,
      port: releasePort,
      host: 'localhost',
    });
    stoppers.push(() => releaseStore.close());
    log(`releases: serving ${releasesDir} at ${releasesUrl}`);

    const shell = await serveShell({
      dir: join(repoRoot, 'shell/app/dist'),
      port: shellPort,
      host: 'localhost',
      documents: {
        '/atrium.config.json': () => ({
          oidc: { authority: keycloak.issuer, clientId: 'atrium-shell' },
          apiBaseUrl: apiUrl,
          remotesUrl: '/remotes.json',
        }),
        '/remotes.json': () => remotes,
      },
    });
    stoppers.push(() => shell.close());
    log(`shell: ready at ${shell.url}`);

    return {
      urls: {
        shell: shell.url,
        api: apiUrl,
        keycloak: keycloak.url,
        issuer: keycloak.issuer,
        releases: releasesUrl,
      },
      remotes,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
