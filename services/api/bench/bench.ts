// `npm run bench --workspace services/api`: a benchmark, not a test. See docs/adr/0006-api-benchmark.md.
//
// Starts, against a locally minted issuer, (a) the API with authentication, (b) the same API with token
// checking replaced by a fixed caller, and (d) bare Fastify; (c) is the API's public JSON route. Servers
// run pinned to core 0, the load generator (autocannon) to core 1. After a warm-up, ROUNDS interleaved
// rounds measure each target for DURATION seconds; the medians give auth_ratio = a/b and
// framework_ratio = c/d. Any non-2xx response or error fails the run, and so does a difference between the
// answers of (c) and (d) other than per-response values (date, request id).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalIssuer } from '../test/local-issuer.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 5);
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 3);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 16);
const here = import.meta.dirname;
const autocannon = join(here, '..', '..', '..', 'node_modules', 'autocannon', 'autocannon.js');
const haveTaskset = spawnSync('taskset', ['--version']).status === 0;
const pinned = (core: number, command: string[]) =>
  haveTaskset ? ['taskset', '-c', String(core), ...command] : command;

const scratch = mkdtempSync(join(tmpdir(), 'atrium-bench-'));
const issuer = await startLocalIssuer();
const token = await issuer.mint({ expiresIn: '1h' });
const children: ChildProcess[] = [];

function startServer(mode: string, port: number): Promise<void> {
  const [command, ...args] = pinned(0, [
    process.execPath,
    join(here, 'bench-server.ts'),
    mode,
    String(port),
    issuer.issuer,
    join(scratch, `${mode}.db`),
  ]);
  const child = spawn(command as string, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

async function waitUntil(url: string, headers: Record<string, string> = {}): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url, { headers })).ok) return;
    } catch {
      // not up yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer 200 within 20 s`);
}

interface Target {
  readonly label: string;
  readonly url: string;
  readonly authenticated: boolean;
}

function load(target: Target, seconds: number): number {
  const args = ['-j', '-c', String(CONNECTIONS), '-d', String(seconds)];
  if (target.authenticated) args.push('-H', `authorization=Bearer ${token}`);
  const [command, ...rest] = pinned(1, [process.execPath, autocannon, ...args, target.url]);
  const run = spawnSync(command as string, rest, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`autocannon failed: ${run.stderr}`);
  const result = JSON.parse(run.stdout) as {
    requests: { average: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  };
  if (result.non2xx || result.errors || result.timeouts) {
    throw new Error(
      `${target.label}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  }
  return result.requests.average;
}

// Values that differ between any two responses; their names must still match.
const PER_RESPONSE = new Set(['date', 'x-request-id']);

/** (c) and (d) must be the same route: same status, body and headers. */
async function assertSameAnswer(left: string, right: string): Promise<void> {
  const describe = async (url: string) => {
    const response = await fetch(url);
    const headers = [...response.headers]
      .map(([name, value]) => `${name}: ${PER_RESPONSE.has(name) ? '*' : value}`)
      .sort();
    return [`${response.status}`, ...headers, await response.text()].join('\n');
  };
  const [a, b] = await Promise.all([describe(left), describe(right)]);
  if (a !== b) throw new Error(`(c) and (d) answer differently:\n--- c\n${a}\n--- d\n${b}`);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

try {
  const ports = { api: 39_171, noAuth: 39_172, bare: 39_173 };
  await Promise.all([
    startServer('api', ports.api),
    startServer('api-no-auth', ports.noAuth),
    startServer('bare', ports.bare),
  ]);
  await waitUntil(`http://127.0.0.1:${ports.api}/api/me`, { authorization: `Bearer ${token}` });
  await waitUntil(`http://127.0.0.1:${ports.noAuth}/api/me`);
  await assertSameAnswer(
    `http://127.0.0.1:${ports.api}/api/health/live`,
    `http://127.0.0.1:${ports.bare}/api/health/live`,
  );
  const targets: Target[] = [
    {
      label: 'a: GET /api/me, authenticated',
      url: `http://127.0.0.1:${ports.api}/api/me`,
      authenticated: true,
    },
    {
      label: 'b: GET /api/me, authentication off',
      url: `http://127.0.0.1:${ports.noAuth}/api/me`,
      authenticated: false,
    },
    {
      label: 'c: Nest on Fastify JSON route',
      url: `http://127.0.0.1:${ports.api}/api/health/live`,
      authenticated: false,
    },
    {
      label: 'd: bare Fastify JSON route',
      url: `http://127.0.0.1:${ports.bare}/api/health/live`,
      authenticated: false,
    },
  ];
  console.log(
    `servers pinned to core 0, autocannon to core 1${haveTaskset ? '' : ' (taskset missing: NOT pinned)'}; ` +
      `${ROUNDS} rounds x ${DURATION} s, ${CONNECTIONS} connections`,
  );
  for (const target of targets) load(target, 2);
  const results = new Map<string, number[]>(targets.map((target) => [target.label, []]));
  for (let round = 0; round < ROUNDS; round += 1) {
    // Interleaved, alternating order, so drift (thermal, other load) hits every target alike.
    const order = round % 2 === 0 ? targets : [...targets].reverse();
    const line: string[] = [];
    for (const target of order) {
      const rate = load(target, DURATION);
      results.get(target.label)?.push(rate);
      line.push(`${target.label.slice(0, 1)}=${Math.round(rate)}`);
    }
    console.log(`round ${round + 1}: ${line.join(' ')} req/s`);
  }
  const medians = targets.map((target) => median(results.get(target.label) ?? []));
  targets.forEach((target, index) =>
    console.log(`${target.label}: median ${Math.round(medians[index] as number)} req/s`),
  );
  const [a, b, c, d] = medians as [number, number, number, number];
  console.log(`auth_ratio=${(a / b).toFixed(2)}`);
  console.log(`framework_ratio=${(c / d).toFixed(2)}`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await issuer.close();
  rmSync(scratch, { recursive: true, force: true });
}
