// One API across replicas (docs/adr/0016-one-api-across-replicas.md): two API processes as deployed
// (`node dist/main.js`) behind the round-robin nginx, on one real PostgreSQL, with Keycloak's people. A request
// captured in transit is refused by the other replica, and by a replica started later; a person gets the
// telemetry limit once across both; one replica killed (SIGKILL) in the middle of 32 connections of mixed traffic
// loses no acknowledged write; a rollback made on one replica is served by the other at once.
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrateDatabase } from '@atrium/api/testing';
import { signIn } from '@atrium/test-support/browser';
import { authorizationFor, type BoundToken } from '@atrium/test-support/dpop';
import { fetchDeployerToken, fetchPlatformToken } from '@atrium/test-support/keycloak';
import { adminQuery, countRows, databaseUrlFor } from '@atrium/test-support/postgres';
import { releaseHashes } from '@atrium/test-support/releases';
import { startApiProxy } from '../dev/api-proxy.ts';
import { buildStale } from '../dev/build.ts';
import { repoRoot } from '../lib/paths.ts';
import { freePort } from '../lib/ports.ts';
import { type ManagedProcess, startProcess } from '../lib/processes.ts';
import { waitForHttp } from '../lib/wait.ts';

const issuer = inject('oidcIssuerUrl');
const adminUrl = inject('postgresAdminUrl');

/** Each replica's TELEMETRY_REPORTS_PER_MINUTE. */
const TELEMETRY_LIMIT = 200;
const TOTAL = 1_500;
/** However fast the machine, the load stops issuing requests after this long. */
const MAX_LOAD_MS = 30_000;
const CONCURRENCY = 32;
/** The first replica is killed when this many requests have been issued. */
const KILL_AT = 400;
const THEMES = ['light', 'dark', 'system'] as const;

const suffix = randomBytes(3).toString('hex');
const databaseName = `atrium_it_one_api_${suffix}`;
const databaseUrl = databaseUrlFor(adminUrl, databaseName);
const workDir = mkdtempSync(join(tmpdir(), 'atrium-one-api-'));
const apiDir = join(repoRoot, 'services/api');

interface Replica {
  readonly url: string;
  readonly port: number;
  readonly process: ManagedProcess;
}
const replicas: Replica[] = [];
let proxy: ManagedProcess | undefined;
let base: string;
let agent: Agent;
let people: { alice: BoundToken; ada: BoundToken };

/** An API process as deployed, on `port`, with the proxy's URL as its public one (the proofs' htu). */
async function startReplica(port: number, name: string): Promise<Replica> {
  const logFile = join(workDir, `${name}.log`);
  const child = startProcess({
    name,
    command: 'node',
    args: ['--enable-source-maps', 'dist/main.js'],
    cwd: apiDir,
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: String(await freePort()),
      METRICS_HOST: '127.0.0.1',
      API_PUBLIC_URL: base,
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      KEYCLOAK_EVENTS_POLL_SECONDS: '0',
      // Deployed, the API has no default for a secret; this one is never used here (no account route, no poll).
      KEYCLOAK_ADMIN_CLIENT_SECRET: 'replicas-spec-unused-secret',
      TELEMETRY_REPORTS_PER_MINUTE: String(TELEMETRY_LIMIT),
      LOG_LEVEL: 'warn',
      OTEL_SDK_DISABLED: 'true',
    },
    logFile,
  });
  await waitForHttp(`http://127.0.0.1:${port}/api/health/ready`, {
    timeoutMs: 60_000,
    isAlive: () => child.child.exitCode === null && child.child.signalCode === null,
    hint: `See ${logFile}.`,
  });
  return { url: `http://127.0.0.1:${port}`, port, process: child };
}

beforeAll(async () => {
  // The API runs from its build, as deployed: rebuilt here only when its sources are newer (npm test builds first).
  await buildStale(repoRoot, () => undefined, ['services/api']);
  await adminQuery(adminUrl, `CREATE DATABASE ${databaseName}`);
  await migrateDatabase({ driver: 'postgresql', url: databaseUrl });
  const proxyPort = await freePort();
  base = `http://127.0.0.1:${proxyPort}`;
  for (const name of ['api-1', 'api-2']) replicas.push(await startReplica(await freePort(), name));
  proxy = await startApiProxy({ port: proxyPort, upstreamPorts: replicas.map((each) => each.port), workDir });
  agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  const [alice, ada] = await Promise.all([signIn(issuer, 'alice', 'alice'), signIn(issuer, 'ada', 'ada')]);
  people = { alice, ada };
});

afterAll(async () => {
  await agent?.close();
  await proxy?.stop();
  for (const replica of replicas) await replica.process.stop();
  await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
  rmSync(workDir, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  /** The replica that answered (nginx names every one it tried; the last one answered). */
  readonly upstream: string;
  readonly headers: Record<string, string>;
  json(): Record<string, unknown>;
}

/** Sends a request with exactly these headers to `origin` (the proxy, or one replica directly). */
async function send(
  origin: string,
  method: 'GET' | 'PUT' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> {
  const response = await request(`${origin}${path}`, {
    method,
    dispatcher: agent,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  const upstream = String(response.headers['x-atrium-upstream'] ?? '');
  return {
    status: response.statusCode,
    upstream: upstream.split(',').at(-1)?.trim() ?? '',
    headers: Object.fromEntries(
      Object.entries(response.headers).map(([name, value]) => [name, String(value)]),
    ),
    // nginx answers its own errors (502) in HTML.
    json: () => {
      try {
        return JSON.parse(text) as Record<string, unknown>;
      } catch {
        return { body: text.slice(0, 200) };
      }
    },
  };
}

/** The headers that authorise one request: a fresh proof for a bound token, made for the proxy's URL. */
const credentials = (token: string | BoundToken, method: string, path: string) =>
  authorizationFor(token, method, `${base}${path}`);

/** One request through the proxy, authorised afresh. */
async function call(
  method: 'GET' | 'PUT' | 'POST',
  path: string,
  token: string | BoundToken,
  body?: unknown,
) {
  return send(base, method, path, await credentials(token, method, path), body);
}

const hostOf = (replica: Replica) => new URL(replica.url).host;

/** The answer of a request refused as a replayed proof: 401 problem+json with a DPoP challenge. */
function expectReplayRefused(answer: Answer) {
  expect(answer.status).toBe(401);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.json()).toMatchObject({ code: 'invalid_dpop_proof' });
  expect(answer.json()['detail']).toMatch(/already used/);
  expect(answer.headers['www-authenticate']).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
}

describe('a request captured in transit', () => {
  it('is refused by the other replica and through the proxy, while the person keeps working', async () => {
    const captured = await credentials(people.alice, 'GET', '/api/me');
    const first = await send(base, 'GET', '/api/me', captured);
    expect(first.status).toBe(200);
    const other = replicas.find((replica) => hostOf(replica) !== first.upstream);
    expect(other).toBeDefined();

    expectReplayRefused(await send(other!.url, 'GET', '/api/me', captured));
    // Round robin: these two reach both replicas.
    for (const answer of [
      await send(base, 'GET', '/api/me', captured),
      await send(base, 'GET', '/api/me', captured),
    ]) {
      expectReplayRefused(answer);
    }
    expect((await call('GET', '/api/me', people.alice)).status).toBe(200);
  });

  it('cannot write again what it wrote: a replayed preference change leaves the later one in place', async () => {
    const captured = await credentials(people.alice, 'PUT', '/api/me/preferences');
    const dark = await send(base, 'PUT', '/api/me/preferences', captured, { theme: 'dark' });
    expect(dark.status).toBe(200);
    expect((await call('PUT', '/api/me/preferences', people.alice, { theme: 'light' })).status).toBe(200);

    const other = replicas.find((replica) => hostOf(replica) !== dark.upstream)!;
    expectReplayRefused(await send(other.url, 'PUT', '/api/me/preferences', captured, { theme: 'dark' }));
    const me = await call('GET', '/api/me', people.alice);
    expect(me.json()).toMatchObject({ preferences: { theme: 'light' } });
  });
});

describe('the telemetry limit per person', () => {
  it('holds across both replicas: the limit once, then 429 problem+json from either', async () => {
    // One minute's window: start with time to spare in it.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await sleep(60_000 - intoMinute + 100);
    const batch = {
      reports: [
        {
          remote: `nowhere${suffix}`,
          version: '1.0.0',
          loadMs: [120],
          renderMs: [],
          failures: { download: 0, integrity: 0, timeout: 0, render: 0 },
          vitals: [],
        },
      ],
    };
    const answers: Answer[] = [];
    // Straight to each replica in turn: each sees about half, never its own limit.
    for (let index = 0; index < TELEMETRY_LIMIT * 1.5; index += 1) {
      const replica = replicas[index % 2]!;
      answers.push(
        await send(
          replica.url,
          'POST',
          '/api/telemetry',
          await credentials(people.ada, 'POST', '/api/telemetry'),
          batch,
        ),
      );
    }
    const accepted = answers.filter((answer) => answer.status === 202);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(accepted).toHaveLength(TELEMETRY_LIMIT);
    expect(refused).toHaveLength(TELEMETRY_LIMIT / 2);
    for (const answer of refused) {
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(answer.json()).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
    }
    // Both replicas refused some: the limit is the person's, not a replica's.
    const refusedBy = new Set(answers.flatMap((answer, index) => (answer.status === 429 ? [index % 2] : [])));
    expect(refusedBy).toEqual(new Set([0, 1]));
    // Another person is not held back by it.
    expect((await call('POST', '/api/telemetry', people.alice, batch)).status).toBe(202);
  });
});

describe('one replica killed (SIGKILL) under 32 connections of mixed traffic', () => {
  const remotes = [0, 1, 2, 3].map((index) => `itkill${index}x${suffix}`);
  const healthRemote = `itkillhealth${suffix}`;
  let deployer: string;

  beforeAll(async () => {
    deployer = await fetchDeployerToken(issuer);
    const platform = await fetchPlatformToken(issuer);
    for (const name of [...remotes, healthRemote]) {
      const created = await call('POST', '/api/remotes', platform, {
        name,
        title: `Kill ${name}`,
        path: `/${name}`,
        owner: 'atrium-deployer',
      });
      expect(created.status).toBe(201);
    }
    const published = await call('POST', `/api/remotes/${healthRemote}/versions`, deployer, {
      version: '1.0.0',
      manifestUrl: `http://localhost:4100/${healthRemote}/1.0.0/mf-manifest.json`,
      ...releaseHashes(healthRemote, '1.0.0'),
      activate: true,
    });
    expect(published.status).toBe(201);
  });

  it('loses no acknowledged write, and a replica started again refuses what the killed one accepted', async () => {
    const [victim, survivor] = replicas as [Replica, Replica];
    const attempted = new Map<string, Set<string>>(remotes.map((name) => [name, new Set()]));
    const published = new Map<string, Set<string>>(remotes.map((name) => [name, new Set()]));
    const themes = { alice: new Set<string>(), ada: new Set<string>() };
    const telemetry = { [hostOf(victim)]: 0, [hostOf(survivor)]: 0 };
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    /** The kill was sent; the victim was gone (its exit seen). */
    let signalled = false;
    let killed = false;
    let captured: Record<string, string> | undefined;

    const operation = async (index: number) => {
      const startedAfterKill = killed;
      const kind = index % 20;
      let outcome: Answer;
      let written: (() => void) | undefined;
      let telemetryAccepted = false;
      if (kind < 3) {
        // 15 %: publishes, spread over four remotes.
        const name = remotes[Math.floor(index / 20) % remotes.length]!;
        const version = `1.${Math.floor(index / 100)}.${index}`;
        attempted.get(name)!.add(version);
        outcome = await call('POST', `/api/remotes/${name}/versions`, deployer, {
          version,
          manifestUrl: `http://localhost:4100/${name}/${version}/mf-manifest.json`,
          ...releaseHashes(name, version),
          activate: index % 3 === 0,
        });
        written = () => published.get(name)!.add(version);
      } else if (kind < 7) {
        // 20 %: preference writes by two real people.
        const who = index % 2 === 0 ? 'alice' : 'ada';
        const theme = THEMES[index % THEMES.length]!;
        themes[who].add(theme);
        outcome = await call('PUT', '/api/me/preferences', people[who], { theme });
      } else if (kind < 9) {
        // 10 %: field telemetry, one load each (who by block: round robin sends even and odd requests apart).
        const who = Math.floor(index / 20) % 2 === 0 ? 'alice' : 'ada';
        outcome = await call('POST', '/api/telemetry', people[who], {
          reports: [
            {
              remote: healthRemote,
              version: '1.0.0',
              loadMs: [100],
              renderMs: [],
              failures: { download: 0, integrity: 0, timeout: 0, render: 0 },
              vitals: [],
            },
          ],
        });
        telemetryAccepted = outcome.status === 202 && outcome.json()['accepted'] === 1;
      } else {
        // 55 %: reads.
        const reader = index % 3 === 0 ? people.ada : people.alice;
        outcome = await call('GET', index % 2 === 0 ? '/api/remotes' : '/api/me', reader);
      }
      statuses.set(outcome.status, (statuses.get(outcome.status) ?? 0) + 1);
      if (outcome.status >= 200 && outcome.status < 300) {
        written?.();
        if (telemetryAccepted) telemetry[outcome.upstream] = (telemetry[outcome.upstream] ?? 0) + 1;
        return;
      }
      if (outcome.status === 429 && kind >= 7 && kind < 9) return;
      // In flight when the replica died: nginx answers 502, or sends the request again to the other replica,
      // which refuses its proof if the dead one had recorded it. Neither was acknowledged.
      const inFlight = !startedAfterKill && signalled;
      const replayedByProxy = outcome.status === 401 && outcome.json()['code'] === 'invalid_dpop_proof';
      if (inFlight && (outcome.status === 502 || replayedByProxy)) return;
      unexpected.push(`#${index} ${outcome.status} ${JSON.stringify(outcome.json())}`);
    };

    const kill = async () => {
      // A request the victim accepts just before it dies: its proof must stay used after.
      captured = await credentials(people.alice, 'GET', '/api/me');
      expect((await send(victim.url, 'GET', '/api/me', captured)).status).toBe(200);
      const exited = once(victim.process.child, 'exit');
      signalled = true;
      victim.process.child.kill('SIGKILL');
      // Requests sent before it was gone were in flight, whenever they started.
      await exited;
      killed = true;
    };

    let next = 0;
    let killing: Promise<void> | undefined;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TOTAL && Date.now() - started < MAX_LOAD_MS) {
          if (next >= KILL_AT) await (killing ??= kill());
          await operation(next++);
        }
      }),
    );
    const elapsed = Date.now() - started;
    console.log(
      `${next} requests, one replica killed after ${KILL_AT}, in ${elapsed} ms; statuses ` +
        JSON.stringify(Object.fromEntries(statuses)),
    );
    expect(killed).toBe(true);
    expect(next).toBeGreaterThan(KILL_AT);
    expect(unexpected).toEqual([]);

    // Added: the killed replica comes back as a new process (empty memory) on its port.
    await victim.process.stop();
    const restarted = await startReplica(victim.port, 'api-1-again');
    replicas[0] = restarted;
    expectReplayRefused(await send(restarted.url, 'GET', '/api/me', captured!));
    expectReplayRefused(await send(survivor.url, 'GET', '/api/me', captured!));

    // Every acknowledged publish is there, with its audit entry, and nothing that was never sent.
    for (const name of remotes) {
      const history = await call('GET', `/api/remotes/${name}/versions`, people.ada);
      expect(history.status).toBe(200);
      const versions = (history.json()['versions'] as Array<{ version: string; active: boolean }>) ?? [];
      const stored = new Set(versions.map((version) => version.version));
      for (const version of published.get(name)!) expect(stored).toContain(version);
      for (const version of stored) expect(attempted.get(name)).toContain(version);
      expect(versions.filter((version) => version.active).length).toBeLessThanOrEqual(1);
    }
    const names = remotes.map((name) => `'${name}'`).join(', ');
    expect(
      await countRows(
        databaseUrl,
        `SELECT count(*)::int AS n FROM audit_event WHERE action = 'remote.version.published' ` +
          `AND split_part(target, '@', 1) IN (${names})`,
      ),
    ).toBe(
      await countRows(
        databaseUrl,
        `SELECT count(*)::int AS n FROM remote_version WHERE remote_name IN (${names})`,
      ),
    );
    for (const who of ['alice', 'ada'] as const) {
      const me = await call('GET', '/api/me', people[who]);
      expect(themes[who]).toContain((me.json()['preferences'] as { theme: string }).theme);
    }

    // Telemetry: all the survivor acknowledged is written; of the victim's, at most what it had not written yet.
    await sleep(3_000);
    const loads = await countRows(
      databaseUrl,
      `SELECT coalesce(sum(loads), 0)::int AS n FROM remote_health WHERE remote_name = '${healthRemote}'`,
    );
    const byVictim = telemetry[hostOf(victim)] ?? 0;
    const bySurvivor = telemetry[hostOf(survivor)] ?? 0;
    console.log(
      `telemetry_lost_on_sigkill=${byVictim + bySurvivor - loads} (of ${byVictim} the killed replica acknowledged)`,
    );
    expect(loads).toBeGreaterThanOrEqual(bySurvivor);
    expect(loads).toBeLessThanOrEqual(byVictim + bySurvivor);
  });
});

describe('a rollback made on one replica', () => {
  it('is served by the other at once', async () => {
    const name = `itrollback${suffix}`;
    const [platform, deployer] = await Promise.all([fetchPlatformToken(issuer), fetchDeployerToken(issuer)]);
    expect(
      (
        await call('POST', '/api/remotes', platform, {
          name,
          title: 'Rollback',
          path: `/${name}`,
          owner: 'atrium-deployer',
        })
      ).status,
    ).toBe(201);
    for (const version of ['1.0.0', '1.1.0']) {
      const publishedVersion = await call('POST', `/api/remotes/${name}/versions`, deployer, {
        version,
        manifestUrl: `http://localhost:4100/${name}/${version}/mf-manifest.json`,
        ...releaseHashes(name, version),
        activate: true,
      });
      expect(publishedVersion.status).toBe(201);
    }
    const [one, two] = replicas as [Replica, Replica];
    const servedBy = async (replica: Replica) => {
      const answer = await send(
        replica.url,
        'GET',
        '/api/remotes',
        await credentials(people.alice, 'GET', '/api/remotes'),
      );
      return (answer.json()['remotes'] as Array<{ name: string; version: string }>).find(
        (remote) => remote.name === name,
      )?.version;
    };
    await expect.poll(() => servedBy(two), { timeout: 2_000, interval: 20 }).toBe('1.1.0');

    const rolledBack = await send(
      one.url,
      'PUT',
      `/api/remotes/${name}/active`,
      await credentials(deployer, 'PUT', `/api/remotes/${name}/active`),
      { version: '1.0.0' },
    );
    expect(rolledBack.status).toBe(200);
    const committed = Date.now();
    await expect.poll(() => servedBy(two), { timeout: 1_000, interval: 10 }).toBe('1.0.0');
    console.log(`rollback_seen_by_other_replica_ms=${Date.now() - committed}`);
  });
});
