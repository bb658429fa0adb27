import { spawn } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { findJava } from './java-runtime.ts';
import { ensureKeycloakDistribution, KEYCLOAK_VERSION } from './keycloak-distribution.ts';
import { ATRIUM_REALM, ATRIUM_REALM_FILE, realmFileFingerprint } from './realm-file.ts';
import { keycloakAdminCredentials } from '../lib/keycloak-admin.ts';
import { dataDir as DATA_DIR } from '../lib/paths.ts';
import { isPortOpen } from '../lib/ports.ts';
import { waitUntil } from '../lib/wait.ts';

/** The project's Keycloak themes, one folder each (`atrium`: the realm's login theme). */
export const ATRIUM_THEMES_DIR = join(import.meta.dirname, 'themes');

export interface EnsureKeycloakOptions {
  /** HTTP port of Keycloak; default 8080. */
  port?: number;
  /** Management port (health endpoints); default 9000. */
  managementPort?: number;
  /**
   * Keycloak's own folder for this instance: its dev database (H2 file), imported realm and temporary files.
   * Default `.data/keycloak` under the repo root, so sign-ins survive restarts. A fresh folder means a fresh
   * import of `realm-atrium.json`.
   */
  dataDir?: string;
  /** Keycloak's output goes here. Default `.data/keycloak.log` for the default data folder, else `<dataDir>/keycloak.log`. */
  logFile?: string;
  /** Extra environment for Keycloak, e.g. `ATRIUM_ACCESS_TOKEN_LIFESPAN` or `KC_BOOTSTRAP_ADMIN_PASSWORD`. */
  env?: Record<string, string>;
  /** Progress lines; default: stderr with a `[keycloak]` prefix. */
  log?: (line: string) => void;
  /**
   * How long to wait for Keycloak to become ready; default 300 s. A first start from a fresh data folder on a
   * busy 2-core machine was seen to spend 60 s augmenting, 40 s creating its schema and more than 180 s in all
   * before the realm import finished.
   */
  startTimeoutMs?: number;
}

/** A Keycloak serving the atrium realm. */
export interface KeycloakHandle {
  /** Base URL, e.g. `http://localhost:8080`. */
  url: string;
  /** Issuer of the atrium realm, e.g. `http://localhost:8080/realms/atrium`. */
  issuer: string;
  /** True when an already running Keycloak was found and is used as is. */
  reused: boolean;
  /** Process id of the Keycloak this call started (undefined when reused). */
  pid: number | undefined;
  /** Settles when the Keycloak this call started exits (never, when reused). */
  exited: Promise<void>;
  /** Stops the Keycloak this call started and waits for it to exit; does nothing when reused. */
  stop(): Promise<void>;
}

/**
 * Makes sure a Keycloak with the atrium realm answers on `port`: reuses a running one, otherwise starts the
 * pinned distribution in development mode (downloaded once into the user's cache) and waits until the
 * realm's discovery document is served.
 */
export async function ensureKeycloak(options: EnsureKeycloakOptions = {}): Promise<KeycloakHandle> {
  const port = options.port ?? 8080;
  const managementPort = options.managementPort ?? 9000;
  const log = options.log ?? ((line: string) => process.stderr.write(`[keycloak] ${line}\n`));
  const url = `http://localhost:${port}`;
  const issuer = `${url}/realms/${ATRIUM_REALM}`;
  const timeoutMs = options.startTimeoutMs ?? 300_000;

  const found = await probeKeycloak(port, managementPort, issuer);
  if (found === 'starting') {
    log(`a Keycloak is starting on port ${port}; waiting for it`);
    await waitUntilReady({ port, managementPort, issuer, timeoutMs, isAlive: () => true });
  }
  if (found === 'ready' || found === 'starting') {
    log(`reusing the Keycloak already running at ${url}`);
    return { url, issuer, reused: true, pid: undefined, exited: new Promise(() => {}), stop: async () => {} };
  }
  if (found === 'missing-realm') {
    throw new Error(
      `A Keycloak runs at ${url} but has no realm "${ATRIUM_REALM}" (was it started without --import-realm?). ` +
        `Stop it (find it with \`ss -ltnp 'sport = :${port}'\`) and run again.`,
    );
  }
  for (const busy of [port, managementPort]) {
    if (await isPortOpen(busy)) {
      throw new Error(
        `Port ${busy} is in use by something that is not a Keycloak with the atrium realm. ` +
          `Find the process with \`ss -ltnp 'sport = :${busy}'\` and stop it, then run again.`,
      );
    }
  }

  const java = findJava();
  const distDir = await ensureKeycloakDistribution({ log });
  const dataDir = resolve(options.dataDir ?? join(DATA_DIR, 'keycloak'));
  const logFile = resolve(
    options.logFile ?? (options.dataDir ? join(dataDir, 'keycloak.log') : join(DATA_DIR, 'keycloak.log')),
  );
  const home = prepareHome(distDir, dataDir, log);

  mkdirSync(dirname(logFile), { recursive: true });
  const logOffset = existsSync(logFile) ? statSync(logFile).size : 0;
  const out = openSync(logFile, 'a');
  const args = [
    'start-dev',
    `--http-port=${port}`,
    // Loopback only; the fixed hostname makes `iss` the same whether a caller says localhost or 127.0.0.1.
    '--http-host=127.0.0.1',
    `--hostname=${url}`,
    `--http-management-port=${managementPort}`,
    '--health-enabled=true',
    // Prometheus metrics at the management port's /metrics (loopback, like the rest of local Keycloak).
    '--metrics-enabled=true',
    '--import-realm',
  ];
  log(`starting Keycloak ${KEYCLOAK_VERSION} on Java ${java.version} (output: ${logFile})`);
  const child = spawn(join(home, 'bin', 'kc.sh'), args, {
    cwd: home,
    // Own process group, so stop() reaches the JVM and whatever the script started.
    detached: true,
    stdio: ['ignore', out, out],
    env: {
      // Development defaults, used only when the master realm is first created; the caller's environment wins.
      // KEYCLOAK_ADMIN_* are the names .env.example and docker compose use.
      KC_BOOTSTRAP_ADMIN_USERNAME: keycloakAdminCredentials().username,
      KC_BOOTSTRAP_ADMIN_PASSWORD: keycloakAdminCredentials().password,
      ...process.env,
      JAVA: java.executable,
      ...options.env,
    },
  });
  closeSync(out);
  const pid = child.pid;
  if (pid === undefined) throw new Error(`Could not start ${join(home, 'bin', 'kc.sh')}.`);

  let running = true;
  const exited = new Promise<void>((done) =>
    child.once('exit', () => {
      running = false;
      done();
    }),
  );
  child.once('error', (error) => log(`kc.sh failed: ${error.message}`));
  // A parent that exits without calling stop() must not leave Keycloak holding the port.
  const killOnExit = () => signalGroup(pid, 'SIGTERM');
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (!running) return;
    signalGroup(pid, 'SIGTERM');
    const killed = sleep(30_000).then(() => signalGroup(pid, 'SIGKILL'));
    await Promise.race([exited, killed]);
    await exited;
  };

  const tail = followLog(logFile, logOffset, log, port);
  try {
    await waitUntilReady({
      port,
      managementPort,
      issuer,
      timeoutMs,
      isAlive: () => running,
      // Another Keycloak may take the port while this one starts (and this one then fails to bind): the
      // answers on the port only count once this process has said it listens there.
      isListening: () => tail.listening,
      onTick: () => tail.poll(),
    });
  } catch (error) {
    tail.poll();
    await stop();
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `Keycloak did not start: ${reason}\n` +
        `Its output is in ${logFile}. Last lines:\n${tail.lastLines(25)}\n` +
        `Usual causes: port ${port} or ${managementPort} taken meanwhile (\`ss -ltnp 'sport = :${port}'\`), ` +
        `a Java older than 17, a realm-atrium.json that Keycloak rejects, or a damaged data folder ${dataDir} ` +
        '(delete it to start afresh).',
      { cause: error },
    );
  }
  tail.poll();
  recordImport(dataDir, log);
  log(`ready at ${url} (pid ${pid})`);
  return { url, issuer, reused: false, pid, exited, stop };
}

type ProbeResult = 'ready' | 'starting' | 'missing-realm' | 'absent' | 'foreign';

/** What answers on the Keycloak ports right now. */
async function probeKeycloak(port: number, managementPort: number, issuer: string): Promise<ProbeResult> {
  const health = await readHealth(managementPort);
  if (health === 'UP') {
    if (await servesRealm(issuer)) return 'ready';
    return (await isPortOpen(port)) ? 'missing-realm' : 'foreign';
  }
  if (health === 'DOWN') return 'starting';
  return (await isPortOpen(port)) || (await isPortOpen(managementPort)) ? 'foreign' : 'absent';
}

async function readHealth(managementPort: number): Promise<'UP' | 'DOWN' | undefined> {
  try {
    const response = await fetch(`http://localhost:${managementPort}/health/ready`, {
      signal: AbortSignal.timeout(2_000),
    });
    const body = (await response.json()) as { status?: unknown };
    return body.status === 'UP' || body.status === 'DOWN' ? body.status : undefined;
  } catch {
    return undefined;
  }
}

async function servesRealm(issuer: string): Promise<boolean> {
  try {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`, {
      signal: AbortSignal.timeout(5_000),
    });
    if (!response.ok) return false;
    const body = (await response.json()) as { issuer?: unknown };
    return body.issuer === issuer;
  } catch {
    return false;
  }
}

async function waitUntilReady(options: {
  port: number;
  managementPort: number;
  issuer: string;
  timeoutMs: number;
  isAlive: () => boolean;
  isListening?: () => boolean;
  onTick?: () => void;
}): Promise<void> {
  await waitUntil(
    async () => {
      options.onTick?.();
      if (options.isListening?.() === false) return undefined;
      return (await readHealth(options.managementPort)) === 'UP' && (await servesRealm(options.issuer))
        ? true
        : undefined;
    },
    {
      timeoutMs: options.timeoutMs,
      intervalMs: 1_000,
      isAlive: options.isAlive,
      failure: (reason) =>
        new Error(
          reason === 'exited'
            ? 'the Keycloak process exited.'
            : `no ready answer from http://localhost:${options.managementPort}/health/ready and ` +
                `${options.issuer}/.well-known/openid-configuration within ${Math.round(options.timeoutMs / 1000)} s.`,
        ),
    },
  );
}

/**
 * Keycloak keeps its database, import folder and temporary files under its home folder (`kc.home.dir`),
 * which is the distribution itself. To give every data folder its own state while sharing the cached
 * distribution, the data folder becomes a home: a copy of `bin/` (kc.sh derives the home from its own real
 * location) and links to the read-only parts of the distribution.
 */
function prepareHome(distDir: string, dataDir: string, log: (line: string) => void): string {
  const marker = join(dataDir, '.atrium-keycloak-home');
  // The folder's bin/ and links are replaced below: never do that to a folder this code did not make.
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0 && !existsSync(marker)) {
    throw new Error(
      `The Keycloak data folder ${dataDir} is not empty and was not created by this script; ` +
        'choose an empty or new folder.',
    );
  }
  mkdirSync(join(dataDir, 'data', 'import'), { recursive: true });
  writeFileSync(
    marker,
    'Keycloak home for Atrium development (infra/keycloak/keycloak.ts); safe to delete.\n',
  );
  rmSync(join(dataDir, 'bin'), { recursive: true, force: true });
  cpSync(join(distDir, 'bin'), join(dataDir, 'bin'), { recursive: true });
  for (const part of ['lib', 'conf', 'providers', 'version.txt']) {
    const link = join(dataDir, part);
    if (lstatSync(link, { throwIfNoEntry: false })) unlinkSync(link);
    symlinkSync(join(distDir, part), link);
  }
  linkThemes(dataDir);
  copyFileSync(ATRIUM_REALM_FILE, join(dataDir, 'data', 'import', basename(ATRIUM_REALM_FILE)));

  // Keycloak skips a realm that already exists, so an edited realm file has no effect on an old database.
  const recorded = join(dataDir, 'realm-import.sha256');
  if (existsSync(recorded) && readFileSync(recorded, 'utf8').trim() !== realmFileFingerprint()) {
    log(
      `realm-atrium.json changed since ${dataDir} was imported; Keycloak keeps the old realm. ` +
        `Delete ${dataDir} to import the new one (this signs everyone out).`,
    );
  }
  return dataDir;
}

/**
 * The home's `themes/` (Keycloak's default theme folder): a link per theme of the project
 * ({@link ATRIUM_THEMES_DIR}), so an edited stylesheet or message shows on the next page load (start-dev
 * caches no theme). The distribution's own `themes/` holds only a README; its built-in themes live in jars.
 */
export function linkThemes(dataDir: string): void {
  const themes = join(dataDir, 'themes');
  // Earlier homes linked the whole folder to the distribution's.
  if (lstatSync(themes, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(themes);
  rmSync(themes, { recursive: true, force: true });
  mkdirSync(themes);
  for (const theme of readdirSync(ATRIUM_THEMES_DIR, { withFileTypes: true })) {
    if (theme.isDirectory()) symlinkSync(join(ATRIUM_THEMES_DIR, theme.name), join(themes, theme.name));
  }
}

function recordImport(dataDir: string, log: (line: string) => void): void {
  const recorded = join(dataDir, 'realm-import.sha256');
  if (existsSync(recorded)) return;
  try {
    writeFileSync(recorded, `${realmFileFingerprint()}\n`);
  } catch (error) {
    log(`could not record the realm import: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Reads what Keycloak appended to its log and forwards the lines a person starting it cares about. */
function followLog(logFile: string, fromOffset: number, log: (line: string) => void, port: number) {
  let offset = fromOffset;
  let partial = '';
  let listening = false;
  const recent: string[] = [];
  const interesting =
    /ERROR|Realm '.*' imported|Importing from|Updating the configuration|started in|Listening on|Profile dev activated/;
  return {
    poll(): void {
      let fd: number;
      try {
        fd = openSync(logFile, 'r');
      } catch {
        return;
      }
      try {
        const size = statSync(logFile).size;
        if (size <= offset) return;
        const buffer = Buffer.alloc(size - offset);
        readSync(fd, buffer, 0, buffer.length, offset);
        offset = size;
        const lines = (partial + buffer.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        for (const line of lines) {
          recent.push(line);
          if (recent.length > 200) recent.shift();
          if (interesting.test(line)) log(readableLogLine(line));
          if (reportsListening(line, port)) listening = true;
        }
      } finally {
        closeSync(fd);
      }
    },
    lastLines(count: number): string {
      return [...recent, partial].filter(Boolean).slice(-count).join('\n');
    },
    /** Whether this Keycloak has logged that it listens on `port`. */
    get listening(): boolean {
      return listening;
    },
  };
}

/** Keycloak's start-up line: `Keycloak 26.7.3 on JVM (…) started in 9.1s. Listening on: http://127.0.0.1:8080. …` */
export function reportsListening(line: string, port: number): boolean {
  return / started in [\d.]+s\. Listening on: https?:\/\/[^\s/]+:(\d+)\./.exec(line)?.[1] === String(port);
}

/** `2026-11-22 02:06:31,003 INFO  [org.keycloak…] (main) Realm 'atrium' imported` → `Realm 'atrium' imported`. */
export function readableLogLine(line: string): string {
  const withoutTime = line.replace(/^\d{4}-\d\d-\d\d [\d:,.]+\s+/, '');
  const info = /^INFO\s+\[[^\]]*\]\s+\([^)]*\)\s*(.*)$/.exec(withoutTime);
  return (info?.[1] ?? withoutTime).trim();
}

async function main(): Promise<void> {
  let handle: KeycloakHandle | undefined;
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    if (!handle) process.exit(130); // still starting: the exit hook stops Keycloak
    process.stderr.write(`\n[keycloak] ${signal}: stopping Keycloak…\n`);
    void handle.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);

  try {
    handle = await ensureKeycloak();
  } catch (error) {
    process.stderr.write(`\n${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  const admin = process.env.KC_BOOTSTRAP_ADMIN_USERNAME ?? process.env.KEYCLOAK_ADMIN_USERNAME ?? 'admin';
  // Only the development default is ever printed; a password someone chose stays out of terminals and logs.
  const password =
    process.env.KC_BOOTSTRAP_ADMIN_PASSWORD || process.env.KEYCLOAK_ADMIN_PASSWORD
      ? 'password from the environment'
      : 'admin';
  process.stdout.write(
    [
      '',
      `Keycloak ${KEYCLOAK_VERSION}${handle.reused ? ' (already running, reused)' : ''}`,
      `  issuer         ${handle.issuer}`,
      `  discovery      ${handle.issuer}/.well-known/openid-configuration`,
      `  admin console  ${handle.url}/admin  (${admin} / ${password}, set on first start)`,
      '  demo users     alice / alice (atrium-user), ada / ada (atrium-user, atrium-admin, atrium-developer)',
      '  deployer       client atrium-deployer, secret from ATRIUM_DEPLOYER_SECRET (dev default atrium-deployer-dev-secret)',
      '  platform       client atrium-platform, secret from ATRIUM_PLATFORM_SECRET (dev default atrium-platform-dev-secret)',
      handle.reused ? '' : `  pid ${handle.pid}; Ctrl-C stops it.`,
      '',
    ].join('\n'),
  );
  if (handle.reused) return;
  await handle.exited;
  if (!stopping) {
    process.stderr.write('[keycloak] Keycloak exited on its own; see .data/keycloak.log\n');
    process.exit(1);
  }
}

if (import.meta.main) await main();
