import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { authorizationFor, type BoundToken } from '../../test/dpop-key.js';
import {
  adminQuery,
  countRows,
  fetchDeployerToken,
  fetchPlatformToken,
  signIn,
} from '../../test/integration-context.js';
import { reservePort } from '../../test/local-issuer.js';
import { releaseHashes } from '../../test/release-hashes.js';

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');

const TOTAL = 2_000;
const CONCURRENCY = 32;
const THEMES = ['light', 'dark', 'system'] as const;

describe('2,000 mixed requests at 32 concurrent connections on PostgreSQL', () => {
  const suffix = randomBytes(3).toString('hex');
  const remotes = [0, 1, 2, 3].map((index) => `itload${index}x${suffix}`);
  let api: TestApp;
  let base: string;
  let agent: Agent;
  let tokens: { deployer: string; alice: BoundToken; ada: BoundToken };

  beforeAll(async () => {
    const port = await reservePort();
    base = `http://127.0.0.1:${port}`;
    // Users' requests carry DPoP proofs whose htu names the URL they are sent to.
    api = await createTestApp({ OIDC_ISSUER_URL: issuer, DATABASE_URL: databaseUrl, API_PUBLIC_URL: base });
    await api.waitForIssuer();
    await api.app.listen({ port, host: '127.0.0.1' });
    agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
    const [deployer, alice, ada] = await Promise.all([
      fetchDeployerToken(issuer),
      signIn(issuer, 'alice', 'alice'),
      signIn(issuer, 'ada', 'ada'),
    ]);
    tokens = { deployer, alice, ada };
    // Remotes are created by the platform (an administrator's act) before their deployer publishes.
    const platform = await fetchPlatformToken(issuer);
    for (const name of remotes) {
      const created = await api.request({
        method: 'POST',
        url: '/api/remotes',
        token: platform,
        body: { name, title: `Load ${name}`, path: `/${name}`, owner: 'atrium-deployer' },
      });
      expect(created.statusCode).toBe(201);
    }
  });

  afterAll(async () => {
    await agent?.close();
    await api?.close();
    const list = remotes.map((name) => `'${name}'`).join(', ');
    await adminQuery(
      databaseUrl,
      `DELETE FROM audit_event WHERE target LIKE 'itload%x${suffix}@%' OR target IN (${list})`,
      `DELETE FROM remote WHERE name IN (${list})`,
    );
  });

  it('answers without a single 5xx and every acknowledged write is read back', async () => {
    const published = new Map<string, Set<string>>(remotes.map((name) => [name, new Set()]));
    const activated = new Map<string, number>(remotes.map((name) => [name, 0]));
    const acknowledgedThemes = { alice: new Set<string>(), ada: new Set<string>() };
    const statuses = new Map<number, number>();

    const call = async (
      method: 'GET' | 'PUT' | 'POST',
      path: string,
      token: string | BoundToken,
      body?: unknown,
    ) => {
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
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      return { status: response.statusCode, json: () => JSON.parse(text) as Record<string, unknown> };
    };

    const operation = async (index: number) => {
      const kind = index % 20;
      if (kind < 3) {
        // 15 %: publishes, spread over four remotes.
        const name = remotes[Math.floor(index / 20) % remotes.length] as string;
        const version = `1.${Math.floor(index / 100)}.${index}`;
        const activate = index % 3 === 0;
        const response = await call('POST', `/api/remotes/${name}/versions`, tokens.deployer, {
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
        const response = await call('PUT', '/api/me/preferences', tokens[who], { theme });
        if (response.status === 200) {
          expect(response.json()).toMatchObject({ preferences: { theme } });
          acknowledgedThemes[who].add(theme);
        }
        return response.status;
      }
      // 60 %: reads.
      const reader = index % 3 === 0 ? tokens.ada : tokens.alice;
      return (await call('GET', index % 2 === 0 ? '/api/remotes' : '/api/me', reader)).status;
    };

    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < TOTAL) await operation(next++);
      }),
    );
    const elapsed = Date.now() - started;

    const counted = [...statuses.values()].reduce((sum, count) => sum + count, 0);
    expect(counted).toBe(TOTAL);
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([200, 201]));
    console.log(
      `${TOTAL} requests in ${elapsed} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
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
