// Two API replicas behind nginx on one PostgreSQL, as in a cluster: mixed reads and writes at 32 concurrent
// connections (bounded in count and time) lose and duplicate nothing, and when the database goes away in the
// middle of traffic both replicas answer 503 problem+json, report not ready, and recover by themselves.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, migrateDatabase, type TestApp } from '@atrium/api/testing';
import { signIn } from '@atrium/test-support/browser';
import { authorizationFor, type BoundToken } from '@atrium/test-support/dpop';
import { fetchDeployerToken, fetchPlatformToken } from '@atrium/test-support/keycloak';
import { adminQuery, countRows, databaseUrlFor } from '@atrium/test-support/postgres';
import { releaseHashes } from '@atrium/test-support/releases';
import { startApiProxy } from '../dev/api-proxy.ts';
import { freePort } from '../lib/ports.ts';
import type { ManagedProcess } from '../lib/processes.ts';

const issuer = inject('oidcIssuerUrl');
const adminUrl = inject('postgresAdminUrl');

const TOTAL = 2_000;
/** However fast the machine, the load stops issuing requests after this long. */
const MAX_LOAD_MS = 30_000;
const CONCURRENCY = 32;
const THEMES = ['light', 'dark', 'system'] as const;

/** A database of this file's own, two replicas on it and nginx in front of them. */
const suffix = randomBytes(3).toString('hex');
const databaseName = `atrium_it_replicas_${suffix}`;
const databaseUrl = databaseUrlFor(adminUrl, databaseName);
/** The migrated, empty schema: the outage brings the database back from it in one statement. */
const templateName = `${databaseName}_template`;
const workDir = mkdtempSync(join(tmpdir(), 'atrium-replicas-'));
let replicas: { app: TestApp; url: string }[] = [];
let proxy: ManagedProcess | undefined;
let base: string;
let agent: Agent;

beforeAll(async () => {
  await adminQuery(adminUrl, `CREATE DATABASE ${templateName}`);
  await migrateDatabase({ driver: 'postgresql', url: databaseUrlFor(adminUrl, templateName) });
  await adminQuery(adminUrl, `CREATE DATABASE ${databaseName} TEMPLATE ${templateName}`);
  const proxyPort = await freePort();
  base = `http://127.0.0.1:${proxyPort}`;
  // One after the other: the first applies the migrations. Users' DPoP proofs name the proxy's URL (htu).
  for (let index = 0; index < 2; index += 1) {
    const port = await freePort();
    const app = await createTestApp({
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      API_PUBLIC_URL: base,
    });
    await app.waitForIssuer();
    await app.app.listen({ port, host: '127.0.0.1' });
    replicas.push({ app, url: `http://127.0.0.1:${port}` });
  }
  proxy = await startApiProxy({
    port: proxyPort,
    upstreamPorts: replicas.map((replica) => Number(new URL(replica.url).port)),
    workDir,
  });
  agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
});

afterAll(async () => {
  await agent?.close();
  await proxy?.stop();
  for (const replica of replicas) await replica.app.close();
  replicas = [];
  await adminQuery(
    adminUrl,
    `DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`,
    `DROP DATABASE IF EXISTS ${templateName} WITH (FORCE)`,
  );
  rmSync(workDir, { recursive: true, force: true });
});

/** One request through the proxy, with the caller's authorization (a DPoP proof for a bound token). */
async function call(
  method: 'GET' | 'PUT' | 'POST',
  path: string,
  token: string | BoundToken,
  body?: unknown,
) {
  const response = await request(`${base}${path}`, {
    method,
    dispatcher: agent,
    headers: {
      ...(await authorizationFor(token, method, `${base}${path}`)),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.body.text();
  return {
    status: response.statusCode,
    upstream: String(response.headers['x-atrium-upstream'] ?? ''),
    contentType: String(response.headers['content-type'] ?? ''),
    json: () => JSON.parse(text) as Record<string, unknown>,
  };
}

describe('2,000 mixed requests at 32 concurrent connections, through nginx to two replicas', () => {
  const remotes = [0, 1, 2, 3].map((index) => `itload${index}x${suffix}`);
  let tokens: { deployer: string; alice: BoundToken; ada: BoundToken };

  beforeAll(async () => {
    const [deployer, alice, ada] = await Promise.all([
      fetchDeployerToken(issuer),
      signIn(issuer, 'alice', 'alice'),
      signIn(issuer, 'ada', 'ada'),
    ]);
    tokens = { deployer, alice, ada };
    // Remotes are created by the platform (an administrator's act) before their deployer publishes.
    const platform = await fetchPlatformToken(issuer);
    for (const name of remotes) {
      const created = await call('POST', '/api/remotes', platform, {
        name,
        title: `Load ${name}`,
        path: `/${name}`,
        owner: 'atrium-deployer',
      });
      expect(created.status).toBe(201);
    }
  });

  it('answers without a single 5xx and every acknowledged write is read back', async () => {
    const published = new Map<string, Set<string>>(remotes.map((name) => [name, new Set()]));
    const activated = new Map<string, number>(remotes.map((name) => [name, 0]));
    const acknowledgedThemes = { alice: new Set<string>(), ada: new Set<string>() };
    const statuses = new Map<number, number>();
    const upstreams = new Set<string>();
    const counted = async (...args: Parameters<typeof call>) => {
      const response = await call(...args);
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
      upstreams.add(response.upstream);
      return response;
    };

    const operation = async (index: number) => {
      const kind = index % 20;
      if (kind < 3) {
        // 15 %: publishes, spread over four remotes.
        const name = remotes[Math.floor(index / 20) % remotes.length] as string;
        const version = `1.${Math.floor(index / 100)}.${index}`;
        const activate = index % 3 === 0;
        const response = await counted('POST', `/api/remotes/${name}/versions`, tokens.deployer, {
          version,
          manifestUrl: `http://localhost:4100/${name}/${version}/mf-manifest.json`,
          ...releaseHashes(name, version),
          activate,
        });
        if (response.status === 201) {
          published.get(name)?.add(version);
          if (activate) activated.set(name, (activated.get(name) ?? 0) + 1);
        }
        return response.status;
      }
      if (kind < 8) {
        // 25 %: preference writes by two real users.
        const who = index % 2 === 0 ? 'alice' : 'ada';
        const theme = THEMES[index % THEMES.length] as string;
        const response = await counted('PUT', '/api/me/preferences', tokens[who], { theme });
        if (response.status === 200) {
          expect(response.json()).toMatchObject({ preferences: { theme } });
          acknowledgedThemes[who].add(theme);
        }
        return response.status;
      }
      // 60 %: reads.
      const reader = index % 3 === 0 ? tokens.ada : tokens.alice;
      return (await counted('GET', index % 2 === 0 ? '/api/remotes' : '/api/me', reader)).status;
    };

    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TOTAL && Date.now() - started < MAX_LOAD_MS) await operation(next++);
      }),
    );
    const elapsed = Date.now() - started;

    const answered = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    expect(answered).toBe(next);
    expect(answered).toBeGreaterThan(TOTAL / 4);
    // Both replicas served: the writes below were read back across them.
    expect(upstreams.size).toBe(2);
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([200, 201]));
    console.log(
      `${answered} requests through nginx to 2 replicas in ${elapsed} ms; ` +
        `statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
    );

    for (const name of remotes) {
      const history = await call('GET', `/api/remotes/${name}/versions`, tokens.ada);
      expect(history.status).toBe(200);
      const versions = (history.json()['versions'] as Array<{ version: string; active: boolean }>) ?? [];
      expect(new Set(versions.map((version) => version.version))).toEqual(published.get(name));
      expect(versions.filter((version) => version.active).length).toBe(
        (activated.get(name) ?? 0) > 0 ? 1 : 0,
      );
    }
    const audit = await countRows(
      databaseUrl,
      `SELECT count(*)::int AS n FROM audit_event WHERE target LIKE 'itload%x${suffix}@%'`,
    );
    const expected =
      [...published.values()].reduce((sum, set) => sum + set.size, 0) +
      [...activated.values()].reduce((sum, count) => sum + count, 0);
    expect(audit).toBe(expected);

    for (const who of ['alice', 'ada'] as const) {
      const me = await call('GET', '/api/me', tokens[who]);
      const theme = (me.json()['preferences'] as { theme: string }).theme;
      expect(acknowledgedThemes[who]).toContain(theme);
    }
  });
});

describe('PostgreSQL going away in the middle of traffic to two replicas', () => {
  it('gets 503 problem+json and not-ready from both, never a 500, and both recover by themselves', async () => {
    const [deployer, alice] = await Promise.all([
      fetchDeployerToken(issuer),
      signIn(issuer, 'alice', 'alice'),
    ]);
    expect((await call('GET', '/api/me', alice)).status).toBe(200);

    // Readers keep going through the whole outage, as people's browsers would.
    const seen = new Map<number, number>();
    const problemTypes = new Set<string>();
    const unexpected: string[] = [];
    let stop = false;
    const readers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const response = await call('GET', '/api/me', alice);
        seen.set(response.status, (seen.get(response.status) ?? 0) + 1);
        if (response.status === 503) problemTypes.add(response.contentType.split(';')[0] as string);
        else if (response.status !== 200)
          unexpected.push(`${response.status} ${JSON.stringify(response.json())}`);
      }
    });

    await adminQuery(adminUrl, `DROP DATABASE ${databaseName} WITH (FORCE)`);
    try {
      const publish = await call('POST', '/api/remotes/outage/versions', deployer, {
        version: '1.0.0',
        manifestUrl: 'http://localhost:4100/outage/1.0.0/mf-manifest.json',
        ...releaseHashes('outage', '1.0.0'),
      });
      expect(publish.status).toBe(503);
      expect(publish.json()).toMatchObject({ code: 'database_unavailable', status: 503 });
      for (const replica of replicas) {
        const ready = await fetch(`${replica.url}/api/health/ready`);
        expect(ready.status).toBe(503);
        expect(await ready.json()).toMatchObject({ status: 'not_ready', checks: { database: 'down' } });
      }
    } finally {
      // Back as it was after its migrations, in one statement: PostgreSQL returning.
      await adminQuery(adminUrl, `CREATE DATABASE ${databaseName} TEMPLATE ${templateName}`);
    }

    // No restart: each replica answers again on its own.
    for (const replica of replicas) {
      await expect
        .poll(async () => (await fetch(`${replica.url}/api/health/ready`)).status, { timeout: 20_000 })
        .toBe(200);
    }
    await expect
      .poll(async () => (await call('GET', '/api/me', alice)).status, { timeout: 20_000 })
      .toBe(200);
    stop = true;
    await Promise.all(readers);

    expect(seen.get(503) ?? 0).toBeGreaterThan(0);
    expect(unexpected).toEqual([]);
    expect([...problemTypes]).toEqual(['application/problem+json']);
    // Nothing was half-written during the outage: the recreated database holds no remote.
    expect((await call('GET', '/api/remotes', alice)).json()).toEqual({ remotes: [], withdrawn: [] });
  });
});
