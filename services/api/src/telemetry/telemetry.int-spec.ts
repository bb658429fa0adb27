import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { MikroORM } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { registerRemote } from '../../test/registered-remote.js';
import { authorizationFor, type BoundToken } from '@atrium/test-support/dpop';
import { adminQuery } from '@atrium/test-support/postgres';
import { fetchDeployerToken, fetchPlatformToken } from '@atrium/test-support/keycloak';
import { signIn } from '@atrium/test-support/browser';
import { type RealmAdmin, realmAdmin } from '@atrium/test-support/keycloak';
import { metricsRegistry } from '../metrics/index.js';
import { RemoteHealth } from './remote-health.entity.js';
import { TelemetryService } from './telemetry.service.js';
import type { VersionReport } from './telemetry.schemas.js';

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');

/** Batches one person may send per minute in this test (TELEMETRY_REPORTS_PER_MINUTE). */
const LIMIT = 20;
const PEOPLE = 6;
/** Each person sends more than two windows' worth, so the limit is met even if the flood spans a minute's end. */
const BATCHES_PER_PERSON = 2 * LIMIT + 5;
/** Requests in flight at once, and the most time the flood may take: it stops sending after that. */
const CONCURRENCY = 16;
const FLOOD_DEADLINE_MS = 60_000;
const BUCKETS = [100, 300, 1000, 3000, 10000] as const;

/** The sums remote_health must hold: what the accepted reports said, added up here independently. */
type Sums = Record<string, number>;

function addReport(sums: Sums, report: VersionReport): void {
  const add = (column: string, value: number) => (sums[column] = (sums[column] ?? 0) + value);
  const histogram = (prefix: string, samples: number[]) => {
    for (const ms of samples) {
      const bound = BUCKETS.find((limit) => ms <= limit);
      add(bound === undefined ? `${prefix}Slower` : `${prefix}Le${bound}`, 1);
    }
  };
  add('loads', report.loadMs.length);
  add(
    'loadMsSum',
    report.loadMs.reduce((sum, ms) => sum + ms, 0),
  );
  histogram('load', report.loadMs);
  add('renders', report.renderMs.length);
  add(
    'renderMsSum',
    report.renderMs.reduce((sum, ms) => sum + ms, 0),
  );
  histogram('render', report.renderMs);
  add('failedDownload', report.failures.download);
  add('failedIntegrity', report.failures.integrity);
  add('failedTimeout', report.failures.timeout);
  add('renderErrors', report.failures.render);
  for (const { name, rating } of report.vitals) {
    const suffix = { good: 'Good', 'needs-improvement': 'NeedsImprovement', poor: 'Poor' }[rating];
    add(`${name.toLowerCase()}${suffix}`, 1);
  }
}

function counterValue(text: string, labels: string): number {
  const line = text
    .split('\n')
    .find((entry) => entry.startsWith(`atrium_telemetry_reports_total{${labels}}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/*
 * A bounded flood of field telemetry (PEOPLE real Keycloak people with DPoP-bound tokens, BATCHES_PER_PERSON
 * batches each, CONCURRENCY at a time, over real sockets to an API on 127.0.0.1 on PostgreSQL), while another
 * person keeps loading /api/remotes. Correctness only (the speed is the bench's
 * `remotes_under_telemetry_flood_ratio`): every batch is answered 202, 429 or 400, each refusal in problem+json;
 * nothing 5xx; every report of an accepted batch is in the per-minute aggregates exactly once, and nothing else.
 */
describe('field telemetry under a flood of reports', () => {
  const suffix = randomBytes(3).toString('hex');
  const remote = `itflood${suffix}`;
  let api: TestApp;
  let base: string;
  let keycloak: RealmAdmin;
  const people: BoundToken[] = [];
  let reader: BoundToken;

  beforeAll(async () => {
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      TELEMETRY_REPORTS_PER_MINUTE: String(LIMIT),
    });
    await api.waitForIssuer();
    await api.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    keycloak = realmAdmin(issuer);
    for (let index = 0; index <= PEOPLE; index += 1) {
      const person = await keycloak.createPerson({
        username: `it-flood${index}-${suffix}`,
        realmRoles: ['atrium-user'],
      });
      const token = await signIn(issuer, person.username, person.password);
      if (index === PEOPLE) reader = token;
      else people.push(token);
    }
    const platform = await fetchPlatformToken(issuer);
    const deployer = await fetchDeployerToken(issuer);
    await registerRemote(api, {
      name: remote,
      title: 'Flood',
      platform,
      deployer,
      versions: ['1.0.0', '1.1.0'],
      active: '1.0.0',
    });
  });

  afterAll(async () => {
    await api?.close();
    await keycloak?.removeAll();
    await adminQuery(
      databaseUrl,
      `DELETE FROM audit_event WHERE target = '${remote}' OR split_part(target, '@', 1) = '${remote}'`,
      `DELETE FROM remote WHERE name = '${remote}'`,
    );
  });

  /** One request over the socket, as the shell sends it: a fresh DPoP proof each time. */
  const call = async (token: BoundToken, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const headers = {
      ...(await authorizationFor(token, method, `${api.config.apiPublicUrl}${path}`)),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, headers: response.headers, body: await response.json() };
  };

  /** Batch `n` of person `p`: different numbers each time, whole milliseconds so the sums are exact. */
  const batchOf = (p: number, n: number): { reports: VersionReport[] } => ({
    reports: [
      {
        remote,
        version: '1.0.0',
        loadMs: [40 + p + n, 250 + n, 2_000 + 10 * p, 20_000 + n].slice(0, 1 + ((p + n) % 4)),
        // A render (or its failure) only follows a load: at most as many as loadMs.
        renderMs: [30 + n, 700 + p].slice(0, Math.min(1 + ((p + n) % 4), 1 + (n % 2))),
        failures: {
          download: n % 3 === 0 ? 1 : 0,
          integrity: 0,
          timeout: p % 2,
          render: n % 5 === 0 ? Math.min(2, 1 + ((p + n) % 4)) : 0,
        },
        vitals: [
          { name: 'LCP', rating: n % 2 ? 'good' : 'poor' },
          { name: 'CLS', rating: 'needs-improvement' },
          { name: 'INP', rating: 'good' },
        ],
      },
      // A version this person is not served: ignored, never counted.
      {
        remote,
        version: '1.1.0',
        loadMs: [1],
        renderMs: [],
        failures: { download: 5, integrity: 0, timeout: 0, render: 0 },
        vitals: [],
      },
    ],
  });

  it('counts every report of every accepted batch exactly once, limits each person with 429, and never fails', async () => {
    const metricsBefore = await metricsRegistry.metrics();
    type Job = { person: number; batch: number; body: unknown; valid: boolean };
    const jobs: Job[] = [];
    for (let batch = 0; batch < BATCHES_PER_PERSON; batch += 1) {
      for (let person = 0; person < PEOPLE; person += 1) {
        jobs.push({ person, batch, body: batchOf(person, batch), valid: true });
      }
      // Now and then a malformed batch (a negative count): refused with 400 before it counts against the rate.
      if (batch % 15 === 7) {
        const bad = batchOf(0, batch);
        bad.reports[0]!.failures.render = -1;
        jobs.push({ person: batch % PEOPLE, batch, body: bad, valid: false });
      }
    }
    const answers: Array<{ job: Job; status: number; headers: Headers; body: unknown }> = [];
    const deadline = Date.now() + FLOOD_DEADLINE_MS;
    let next = 0;
    const flood = Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length && Date.now() < deadline) {
        const job = jobs[next++]!;
        answers.push({ job, ...(await call(people[job.person]!, 'POST', '/api/telemetry', job.body)) });
      }
    });
    // Meanwhile, someone else keeps loading the shell: the registry answers throughout.
    let flooding = true;
    const remotesStatuses: number[] = [];
    const loading = (async () => {
      while (flooding) remotesStatuses.push((await call(reader, 'GET', '/api/remotes')).status);
    })();
    await Promise.all(flood);
    flooding = false;
    await loading;

    expect(answers.length).toBeGreaterThan(0);
    expect(remotesStatuses.length).toBeGreaterThan(0);
    expect(new Set(remotesStatuses)).toEqual(new Set([200]));
    const byStatus = (status: number) => answers.filter((answer) => answer.status === status);
    expect(answers.filter((answer) => ![202, 400, 429].includes(answer.status))).toEqual([]);
    for (const answer of byStatus(400)) {
      expect(answer.job.valid).toBe(false);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({ status: 400, code: 'validation_failed' });
    }
    for (const answer of byStatus(429)) {
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.body).toMatchObject({ status: 429, code: 'rate_limited' });
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const accepted = byStatus(202);
    for (const answer of accepted) expect(answer.body).toEqual({ accepted: 1, ignored: 1 });
    for (let person = 0; person < PEOPLE; person += 1) {
      const sent = answers.filter((answer) => answer.job.person === person && answer.job.valid);
      const taken = sent.filter((answer) => answer.status === 202).length;
      // Within one minute's window LIMIT at most; the flood may span the end of one window and a second.
      expect(taken).toBeGreaterThanOrEqual(Math.min(LIMIT, sent.length));
      expect(taken).toBeLessThanOrEqual(2 * LIMIT);
      if (sent.length > 2 * LIMIT) expect(taken).toBeLessThan(sent.length);
    }
    console.log(
      `telemetry flood: ${answers.length} batches (${accepted.length} accepted, ${byStatus(429).length} rate ` +
        `limited, ${byStatus(400).length} malformed) with ${remotesStatuses.length} /api/remotes loads meanwhile`,
    );

    // Every counter of the table, those no report touched included (they must stay 0).
    const counters = Object.keys(RemoteHealth.meta.properties).filter(
      (property) => !['remote', 'version', 'minute'].includes(property),
    );
    expect(counters).toHaveLength(29);
    const expected: Sums = Object.fromEntries(counters.map((column) => [column, 0]));
    for (const answer of accepted) {
      const { reports } = answer.job.body as { reports: VersionReport[] };
      addReport(expected, reports[0]!);
    }
    // Reports are added up in memory and written once a second: what is not written yet is, now.
    await api.app.get(TelemetryService).write();
    const rows = await api.app
      .get(MikroORM)
      .em.fork()
      .find(RemoteHealth, { remote }, { orderBy: { version: 'asc', minute: 'asc' } });
    expect(new Set(rows.map((row) => row.version))).toEqual(new Set(['1.0.0']));
    const stored: Sums = {};
    for (const row of rows) {
      for (const column of counters) {
        stored[column] = (stored[column] ?? 0) + Number(row[column as keyof RemoteHealth]);
      }
    }
    expect(stored).toEqual(expected);
    expect(expected['loads']).toBeGreaterThan(accepted.length);

    const metricsAfter = await metricsRegistry.metrics();
    for (const [outcome, reports] of [
      ['accepted', accepted.length],
      ['ignored', accepted.length],
    ] as const) {
      expect(counterValue(metricsAfter, `outcome="${outcome}"`)).toBe(
        counterValue(metricsBefore, `outcome="${outcome}"`) + reports,
      );
    }
  });
});
