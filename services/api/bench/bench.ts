// `npm run bench --workspace services/api`: a benchmark, not a test. See docs/adr/0006-api-benchmark.md.
//
// Starts, against a locally minted issuer, (a) the API with authentication (a DPoP-bound token and a fresh
// DPoP proof per request, as the browser sends), (b) the same API with token checking replaced by a fixed
// caller, and (d) bare Fastify; (c) is the API's public JSON route; (e) is `/api/me` on the same API with a
// bearer token (a deployer's, whose tokens are not DPoP-bound) and (h) `/api/remotes` with it, the registry
// holding 1,000 remotes of 50 versions each (20 for everyone, the rest for 49 teams), and (i) the same while
// field telemetry floods the same server (BENCH_FLOOD_RATE batches a second, 200, from FLOOD_PEOPLE people with
// DPoP-bound tokens, each batch reporting on two of the remotes they are served); with BENCH_POSTGRES_URL, (f) and (g) are
// `/api/me` with that bearer token and the public JSON route of the API on PostgreSQL. Servers run pinned to
// core 0, the load generator (autocannon, one long-lived process) to core 1. After a warm-up, ROUNDS
// interleaved rounds measure each target for DURATION seconds. Each ratio is the median over the rounds of
// that round's own ratio (both sides are measured back to back), so that the machine speeding up or slowing
// down between rounds cancels out. Any non-2xx response or error fails the run, and so does a difference
// between the answers of (c) and (d) other than per-response values (date, request id).
// Before the timed servers start, (c) and (d) are also counted in instructions per request under valgrind's
// callgrind (bench/instruction-count.ts): framework_instructions_ratio, repeatable where the timed figures are not.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { calculateJwkThumbprint } from 'jose';
import { startLocalIssuer } from '@atrium/test-support/local-issuer';
import { type ProofRecipe, proofSigner } from './dpop-proofs.ts';
import { haveCallgrind, instructionsPerRequest } from './instruction-count.ts';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 9);
const DURATION = Number(process.env['BENCH_SECONDS'] ?? 3);
const CONNECTIONS = Number(process.env['BENCH_CONNECTIONS'] ?? 16);
const REGISTRY_SIZE = 1_000;
// The telemetry flood of (i): batches a second, over this many people (round-robin, so each stays far below
// TELEMETRY_REPORTS_PER_MINUTE and nearly every batch is accepted and written: the costly case).
const FLOOD_RATE = Number(process.env['BENCH_FLOOD_RATE'] ?? 200);
const FLOOD_PEOPLE = 2_000;
const FLOOD_CONNECTIONS = 8;
const here = import.meta.dirname;
const haveTaskset = spawnSync('taskset', ['--version']).status === 0;
const pinned = (core: number, command: string[]) =>
  haveTaskset ? ['taskset', '-c', String(core), ...command] : command;

const scratch = mkdtempSync(join(tmpdir(), 'atrium-bench-'));
const ports = {
  api: 39_171,
  noAuth: 39_172,
  bare: 39_173,
  postgres: 39_174,
  countedBare: 39_175,
  countedApi: 39_176,
};
// Requests counted under callgrind per server (after 2,000 to warm up): about 40 s each.
const COUNTED_REQUESTS = 3_000;
// A PostgreSQL database of the bench's own (created, and dropped afterwards, by infra/dev/bench.ts).
const postgresUrl = process.env['BENCH_POSTGRES_URL'];
const issuer = await startLocalIssuer();
// The browser's DPoP key and a token bound to it (cnf.jkt), as atrium-shell's tokens are.
const dpopKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
const { kty, crv, x, y } = dpopKey;
const token = await issuer.mint({
  expiresIn: '1h',
  claims: { cnf: { jkt: await calculateJwkThumbprint({ kty, crv, x, y }) } },
});
// A deployer's token: client credentials, not DPoP-bound, sent as `Authorization: Bearer`.
const bearerToken = await issuer.mint({ expiresIn: '1h', claims: { azp: 'atrium-deployer' } });
const proofRecipe: ProofRecipe = {
  privateJwk: dpopKey,
  htm: 'GET',
  htu: `http://127.0.0.1:${ports.api}/api/me`,
  accessToken: token,
};
const freshProof = proofSigner(proofRecipe);
// The flood's people: shell tokens bound to the same key (the API checks each proof against its token's jkt),
// and what each one's shell reports: a load and a render of two of the remotes everybody is served (bench0 to
// bench19 at 1.49.0, see bench-server.ts).
const boundTo = await calculateJwkThumbprint({ kty, crv, x, y });
const floodPeople = await Promise.all(
  Array.from({ length: FLOOD_PEOPLE }, async (_, index) => ({
    token: await issuer.mint({
      expiresIn: '1h',
      claims: { sub: `flood-${index}`, cnf: { jkt: boundTo } },
    }),
    body: JSON.stringify({
      reports: [index % 20, (index + 7) % 20].map((remote) => ({
        remote: `bench${remote}`,
        version: '1.49.0',
        loadMs: [180 + (index % 50)],
        renderMs: [40 + (index % 30)],
        failures: { download: 0, integrity: 0, timeout: 0, render: index % 25 === 0 ? 1 : 0 },
        vitals: [{ name: 'LCP', rating: 'good' }],
      })),
    }),
  })),
);
// A pool too small would make the generator sign during the measurement: sized for well above the rate
// measured last time for the target.
const POOL_HEADROOM = 1.5;
const MIN_POOL = 20_000;
const children: ChildProcess[] = [];

function startServer(mode: string, port: number, databaseUrl: string): Promise<number> {
  const [command, ...args] = pinned(0, [
    process.execPath,
    join(here, 'bench-server.ts'),
    mode,
    String(port),
    issuer.issuer,
    databaseUrl,
  ]);
  // bench-server reads API_PUBLIC_URL from its environment: DPoP proofs name http://127.0.0.1:<port>. The
  // API on SQLite also holds a registry at scale (BENCH_REMOTES remotes of 50 versions each).
  const child = spawn(command as string, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      API_PUBLIC_URL: `http://127.0.0.1:${port}`,
      BENCH_REMOTES: port === ports.api ? String(REGISTRY_SIZE) : '0',
    },
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('listening')) resolve(child.pid as number);
    });
    child.on('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
}

async function waitUntil(url: string, headers: () => Record<string, string> = () => ({})): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url, { headers: headers() })).ok) return;
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
  /** How requests prove who sends them: a DPoP-bound token with a fresh proof, a bearer token, or not at all. */
  readonly auth: 'dpop' | 'bearer' | 'none';
  /** The server process answering it. */
  readonly pid: number;
  /** Whether field telemetry floods the same server meanwhile (the load generator's `flood`). */
  readonly flood?: boolean;
}

// CPU seconds a process has used (user + system), from /proc (Linux); undefined elsewhere. `taskset` execs
// the server, so the child's pid is the server's.
const TICKS_PER_SECOND = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
function cpuSecondsOf(pid: number): number | undefined {
  const file = `/proc/${pid}/stat`;
  if (!existsSync(file)) return undefined;
  // Fields after the command name, which is in parentheses and may hold spaces: utime and stime are 12 and 13.
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** What the telemetry flood sent over all of (i)'s windows, and how it was answered. */
const floodCounts = { sent: 0, accepted: 0, limited: 0, seconds: 0 };

/** The load generator, started once; `load()` sends it one measurement at a time. */
function startLoadGenerator() {
  const [command, ...args] = pinned(1, [process.execPath, join(here, 'load-generator.ts')]);
  const child = spawn(command as string, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`load generator exited with ${code}`);
  });
  exited.catch(() => undefined); // raced below; unobserved once the run is over
  const lastRate = new Map<Target, number>();
  return async (target: Target, seconds: number): Promise<number> => {
    const headers = {
      dpop: { authorization: `DPoP ${token}` },
      bearer: { authorization: `Bearer ${bearerToken}` },
      none: {},
    }[target.auth];
    const pool = Math.max(MIN_POOL, Math.ceil((lastRate.get(target) ?? 0) * seconds * POOL_HEADROOM));
    const dpop = target.auth === 'dpop' ? { ...proofRecipe, pool } : undefined;
    const flood = target.flood
      ? {
          url: `http://127.0.0.1:${ports.api}/api/telemetry`,
          rate: FLOOD_RATE,
          connections: FLOOD_CONNECTIONS,
          privateJwk: dpopKey,
          people: floodPeople,
        }
      : undefined;
    child.stdin.write(
      `${JSON.stringify({ url: target.url, seconds, connections: CONNECTIONS, headers, dpop, flood })}\n`,
    );
    const answer = await Promise.race([answers.next(), exited]);
    if (answer.done) throw new Error('the load generator stopped answering');
    const result = JSON.parse(answer.value) as {
      requestsPerSecond: number;
      failures: number;
      signedDuringMeasurement: number;
      flood?: { sent: number; accepted: number; limited: number; failures: number };
    };
    if (result.failures) throw new Error(`${target.label}: ${result.failures} non-2xx responses or errors`);
    if (result.flood) {
      if (result.flood.failures) {
        throw new Error(
          `${target.label}: the telemetry flood got ${result.flood.failures} 5xx, other 4xx or errors`,
        );
      }
      floodCounts.sent += result.flood.sent;
      floodCounts.accepted += result.flood.accepted;
      floodCounts.limited += result.flood.limited;
      floodCounts.seconds += seconds;
    }
    if (result.signedDuringMeasurement) {
      console.log(
        `${target.label}: pool ran dry, ${result.signedDuringMeasurement} proofs signed while measuring`,
      );
    }
    lastRate.set(target, result.requestsPerSecond);
    return result.requestsPerSecond;
  };
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
  const ordered = [...values].sort((x, y) => x - y);
  const middle = Math.floor(ordered.length / 2);
  return ordered.length % 2
    ? (ordered[middle] as number)
    : ((ordered[middle - 1] as number) + (ordered[middle] as number)) / 2;
};

try {
  // The proof check alone, on the servers' core while it is still idle (bench/proof-cost.ts).
  const [costCommand, ...costArgs] = pinned(0, [process.execPath, join(here, 'proof-cost.ts')]);
  const cost = spawnSync(costCommand as string, costArgs, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (cost.status !== 0) throw new Error(`proof-cost.ts exited with ${cost.status}`);
  console.log(cost.stdout.trim());
  const rawVerifyUs = Number(/raw_verify_us=(\d+)/.exec(cost.stdout)?.[1]);
  const sqlite = (name: string) => `sqlite:${join(scratch, `${name}.db`)}`;
  // (c) and (d) in instructions per request (bench/instruction-count.ts), both servers at once, one core each,
  // before the timed servers start.
  let instructions: { bare: number; api: number } | undefined;
  if (haveCallgrind()) {
    const counted = (mode: 'bare' | 'api', port: number) => {
      const outDir = join(scratch, `callgrind-${mode}`);
      mkdirSync(outDir);
      return instructionsPerRequest(
        {
          args: [mode, String(port), issuer.issuer, sqlite(`callgrind-${mode}`)],
          env: { ...process.env, API_PUBLIC_URL: `http://127.0.0.1:${port}`, BENCH_REMOTES: '0' },
          url: `http://127.0.0.1:${port}/api/health/live`,
          outDir,
        },
        COUNTED_REQUESTS,
      );
    };
    const [bare, api] = await Promise.all([
      counted('bare', ports.countedBare),
      counted('api', ports.countedApi),
    ]);
    instructions = { bare, api };
    console.log(`instructions_per_request_bare=${Math.round(bare)}`);
    console.log(`instructions_per_request_api=${Math.round(api)}`);
  } else {
    console.log('valgrind missing: framework_instructions_ratio not measured (apt-get install valgrind)');
  }
  const [apiPid, noAuthPid, barePid, postgresPid] = await Promise.all([
    startServer('api', ports.api, sqlite('api')),
    startServer('api-no-auth', ports.noAuth, sqlite('api-no-auth')),
    startServer('bare', ports.bare, sqlite('bare')),
    postgresUrl ? startServer('api', ports.postgres, postgresUrl) : undefined,
  ]);
  const api = `http://127.0.0.1:${ports.api}`;
  const onPostgres = `http://127.0.0.1:${ports.postgres}`;
  await waitUntil(`${api}/api/me`, () => ({ authorization: `DPoP ${token}`, dpop: freshProof() }));
  await waitUntil(`http://127.0.0.1:${ports.noAuth}/api/me`);
  if (postgresPid)
    await waitUntil(`${onPostgres}/api/me`, () => ({ authorization: `Bearer ${bearerToken}` }));
  await assertSameAnswer(`${api}/api/health/live`, `http://127.0.0.1:${ports.bare}/api/health/live`);
  // In the order measured: every ratio's two sides are neighbours, in both directions of a round.
  const targets: Target[] = [
    { label: 'a: GET /api/me, authenticated (DPoP)', url: `${api}/api/me`, auth: 'dpop', pid: apiPid },
    {
      label: 'b: GET /api/me, authentication off',
      url: `http://127.0.0.1:${ports.noAuth}/api/me`,
      auth: 'none',
      pid: noAuthPid,
    },
    {
      label: 'd: bare Fastify JSON route',
      url: `http://127.0.0.1:${ports.bare}/api/health/live`,
      auth: 'none',
      pid: barePid,
    },
    { label: 'c: Nest on Fastify JSON route', url: `${api}/api/health/live`, auth: 'none', pid: apiPid },
    { label: 'e: GET /api/me, bearer token (SQLite)', url: `${api}/api/me`, auth: 'bearer', pid: apiPid },
    {
      label: `h: GET /api/remotes, bearer token, ${REGISTRY_SIZE} remotes x 50 versions`,
      url: `${api}/api/remotes`,
      auth: 'bearer',
      pid: apiPid,
    },
    {
      label: `i: the same as h, during a telemetry flood of ${FLOOD_RATE} batches/s`,
      url: `${api}/api/remotes`,
      auth: 'bearer',
      pid: apiPid,
      flood: true,
    },
    ...(postgresPid
      ? ([
          {
            label: 'g: public JSON route (PostgreSQL)',
            url: `${onPostgres}/api/health/live`,
            auth: 'none',
            pid: postgresPid,
          },
          {
            label: 'f: GET /api/me, bearer token (PostgreSQL)',
            url: `${onPostgres}/api/me`,
            auth: 'bearer',
            pid: postgresPid,
          },
        ] satisfies Target[])
      : []),
  ];
  if (!postgresPid)
    console.log('BENCH_POSTGRES_URL unset: me_ratio_postgres not measured (npm run bench sets it)');
  console.log(
    `servers pinned to core 0, autocannon to core 1${haveTaskset ? '' : ' (taskset missing: NOT pinned)'}; ` +
      `${ROUNDS} rounds x ${DURATION} s, ${CONNECTIONS} connections`,
  );
  const load = startLoadGenerator();
  for (const target of targets) await load(target, 2);
  Object.assign(floodCounts, { sent: 0, accepted: 0, limited: 0, seconds: 0 });
  const rates = targets.map((): number[] => []);
  const busy = targets.map((): number[] => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    // Interleaved, alternating order (a b c d, then d c b a), so drift hits every target alike and each
    // ratio's two sides are always measured one after the other.
    const forward = targets.map((_target, index) => index);
    const order = round % 2 === 0 ? forward : forward.reverse();
    const line: string[] = [];
    for (const index of order) {
      const target = targets[index] as Target;
      const cpuBefore = cpuSecondsOf(target.pid);
      const rate = await load(target, DURATION);
      const cpuAfter = cpuSecondsOf(target.pid);
      rates[index]?.push(rate);
      if (cpuBefore !== undefined && cpuAfter !== undefined)
        busy[index]?.push((cpuAfter - cpuBefore) / DURATION);
      line.push(`${target.label.slice(0, 1)}=${Math.round(rate)}`);
    }
    console.log(`round ${round + 1}: ${line.join(' ')} req/s`);
  }
  // A server well below a full core was not what limited its target: the load generator's core was.
  targets.forEach((target, index) => {
    const serverBusy = busy[index]?.length ? `, server busy ${Math.round(100 * median(busy[index]))}%` : '';
    console.log(`${target.label}: median ${Math.round(median(rates[index] ?? []))} req/s${serverBusy}`);
  });
  const ratesOf = (letter: string) =>
    rates[targets.findIndex((target) => target.label.startsWith(`${letter}:`))];
  const perRound = (top: string, bottom: string) =>
    (ratesOf(top) ?? []).map((value, round) => value / (ratesOf(bottom)?.[round] as number));
  const ratios: Record<string, number[]> = {
    auth_ratio: perRound('a', 'b'),
    // A bearer token's whole cost at the API: /api/me with a cached bearer token over the same with auth off.
    auth_ratio_bearer: perRound('e', 'b'),
    framework_ratio: perRound('c', 'd'),
    // Issue targets: /api/me authenticated against the public JSON route of the same server.
    me_ratio_sqlite: perRound('e', 'c'),
    remotes_ratio: perRound('h', 'c'),
    // Issue target: /api/remotes throughput while field telemetry floods the same server, over without.
    remotes_under_telemetry_flood_ratio: perRound('i', 'h'),
    ...(postgresPid ? { me_ratio_postgres: perRound('f', 'g') } : {}),
    // For comparison: the same with a DPoP proof on every request.
    me_dpop_ratio_sqlite: perRound('a', 'c'),
  };
  for (const [name, values] of Object.entries(ratios)) {
    console.log(
      `${name} per round: ${values.map((ratio) => ratio.toFixed(2)).join(' ')} ` +
        `(lowest ${Math.min(...values).toFixed(2)}, highest ${Math.max(...values).toFixed(2)})`,
    );
  }
  console.log(
    `telemetry flood during (i): ${floodCounts.sent} batches in ${floodCounts.seconds} s, ` +
      `${floodCounts.accepted} accepted, ${floodCounts.limited} rate limited (429), no other answer`,
  );
  // What a fresh DPoP proof adds to a request on the API's one pinned core (µs per request: 1e6 / rate), over
  // the same request with a cached bearer token, in raw signature verifications: 1 would be the limit.
  ratios['dpop_request_overhead_ratio'] = (ratesOf('a') ?? []).map(
    (dpopRate, round) => (1e6 / dpopRate - 1e6 / (ratesOf('e')?.[round] as number)) / rawVerifyUs,
  );
  // The issues' targets, printed beside their figures (14: throughput of reads; 25: the limits).
  const issueTargets: Record<string, string> = {
    me_ratio_sqlite: '>= 0.4',
    me_ratio_postgres: '>= 0.4',
    remotes_ratio: '>= 0.4',
    auth_ratio_bearer: '>= 0.8',
    framework_ratio: '>= 0.85',
    dpop_request_overhead_ratio: '<= 1.3',
  };
  for (const [name, values] of Object.entries(ratios)) {
    const target = issueTargets[name];
    console.log(`${name}=${median(values).toFixed(2)}${target ? ` (target ${target})` : ''}`);
  }
  console.log(
    `telemetry_flood_accepted_per_second=${(floodCounts.accepted / floodCounts.seconds).toFixed(0)}`,
  );
  // framework_ratio counted in instructions: repeatable where the timed one is noisy, but not time.
  if (instructions)
    console.log(`framework_instructions_ratio=${(instructions.bare / instructions.api).toFixed(2)}`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await issuer.close();
  rmSync(scratch, { recursive: true, force: true });
}
