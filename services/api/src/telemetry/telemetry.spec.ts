import { MikroORM, RequestContext } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { releaseHashes } from '@atrium/test-support/releases';
import { metricsRegistry } from '../metrics/index.js';
import { cohortBucket, type RolloutDoc } from '../rollout/index.js';
import { RemoteHealth } from './remote-health.entity.js';
import { TELEMETRY_WRITE_EVERY_MS, TelemetryService } from './telemetry.service.js';
import type { RemoteHealthDoc, VersionReport } from './telemetry.schemas.js';
import { captureLogLines } from '@atrium/test-support/logs';

interface AuditBody {
  items: Array<{ actor: string; action: string; target: string; details: Record<string, unknown> }>;
}

/*
 * Field telemetry on SQLite with locally minted tokens: aggregates, the bounds on size and rate, and the
 * automatic rollback of a canary that fails on render. (PostgreSQL with Keycloak's people: the rollback in
 * rollout/rollout.int-spec.ts, a bounded flood in telemetry.int-spec.ts.)
 */
describe('field telemetry and automatic rollback', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let admin: string;
  let deployer: string;
  const canaryPeople: string[] = [];
  const { lines: logLines, destination: logDestination } = captureLogLines();
  const stablePeople: string[] = [];

  const mintPerson = (sub: string, roles = ['atrium-user']) =>
    issuer.mint({ claims: { sub, preferred_username: sub, azp: 'atrium-shell', realm_access: { roles } } });

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp(
      {
        OIDC_ISSUER_URL: issuer.issuer,
        TELEMETRY_REPORTS_PER_MINUTE: '3',
        ROLLBACK_MIN_SAMPLES: '20',
        ROLLBACK_MIN_REPORTERS: '5',
        // Every load of this test counts (the cap per person has tests of its own).
        ROLLBACK_MAX_LOADS_PER_PERSON: '10',
        LOG_LEVEL: 'warn',
      },
      { logDestination, nestLogs: true },
    );
    await api.waitForIssuer();
    admin = await mintPerson('ada', ['atrium-user', 'atrium-admin']);
    deployer = await issuer.mint({
      claims: {
        sub: 'sa-deployer',
        preferred_username: 'service-account-atrium-deployer',
        azp: 'atrium-deployer',
        realm_access: { roles: ['remote-publisher'] },
      },
    });
    for (let index = 0; index < 40; index += 1) {
      const sub = `person-${index}`;
      (cohortBucket('timeoff', sub) < 50 ? canaryPeople : stablePeople).push(await mintPerson(sub));
    }
    const call = (method: 'POST' | 'PUT', url: string, token: string, body: unknown) =>
      api.request({ method, url, token, body });
    expect(
      (
        await call('POST', '/api/remotes', admin, {
          name: 'timeoff',
          title: 'T',
          path: '/timeoff',
          owner: 'atrium-deployer',
        })
      ).statusCode,
    ).toBe(201);
    for (const version of ['1.0.0', '1.1.0']) {
      const published = await call('POST', '/api/remotes/timeoff/versions', deployer, {
        version,
        manifestUrl: `http://localhost:4100/timeoff/${version}/mf-manifest.json`,
        ...releaseHashes('timeoff', version),
        activate: version === '1.0.0',
      });
      expect(published.statusCode).toBe(201);
    }
    const started = await call('POST', '/api/remotes/timeoff/rollout', deployer, {
      version: '1.1.0',
      percent: 50,
    });
    expect(started.statusCode).toBe(201);
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const report = (version: string, extra: Partial<VersionReport> = {}): VersionReport => ({
    remote: 'timeoff',
    version,
    loadMs: [],
    renderMs: [],
    failures: { download: 0, integrity: 0, timeout: 0, render: 0 },
    vitals: [],
    ...extra,
  });
  const send = (token: string, reports: VersionReport[], headers: Record<string, string> = {}) =>
    api.request({ method: 'POST', url: '/api/telemetry', token, body: { reports }, headers });
  const rollout = async () =>
    (await api.request({ url: '/api/remotes/timeoff/rollout', token: admin })).json<{
      rollout: RolloutDoc;
    }>().rollout;
  const versionFor = async (token: string) =>
    (await api.request({ url: '/api/remotes', token }))
      .json<{ remotes: Array<{ name: string; version: string }> }>()
      .remotes.find((remote) => remote.name === 'timeoff')?.version;

  it('adds what people report about the version they are served to per-minute aggregates', async () => {
    expect(canaryPeople.length).toBeGreaterThanOrEqual(8);
    expect(stablePeople.length).toBeGreaterThanOrEqual(5);
    for (const token of stablePeople.slice(0, 5)) {
      const response = await send(token, [
        report('1.0.0', {
          loadMs: [80, 250, 900, 2000, 12_000],
          renderMs: [40, 60, 90, 120, 400],
          vitals: [
            { name: 'LCP', rating: 'good' },
            { name: 'CLS', rating: 'poor' },
          ],
        }),
        // Not served to a stable person: counted nowhere.
        report('1.1.0', { loadMs: [10, 10, 10] }),
      ]);
      expect(response.statusCode).toBe(202);
      expect(response.json()).toEqual({ accepted: 1, ignored: 1 });
    }
    const health = await api.request({ url: '/api/admin/remotes/timeoff/health?minutes=60', token: admin });
    expect(health.statusCode).toBe(200);
    const { versions } = health.json<RemoteHealthDoc>();
    expect(versions.map((entry) => entry.version)).toEqual(['1.0.0']);
    const points = versions[0]!.points;
    const sum = (pick: (point: (typeof points)[number]) => number) => points.reduce((n, p) => n + pick(p), 0);
    expect(sum((point) => point.attempts)).toBe(25);
    expect(sum((point) => point.failures)).toBe(0);
    expect(sum((point) => point.vitals)).toBe(10);
    expect(sum((point) => point.poorVitals)).toBe(5);
    expect(points[0]!.loadMsMean).toBeCloseTo((80 + 250 + 900 + 2000 + 12_000) / 5);
  });

  it('writes what was reported by itself within a second or so, one write for many reports', async () => {
    const orm = api.app.get(MikroORM);
    const loads = async () =>
      (await orm.em.fork().find(RemoteHealth, { remote: 'timeoff', version: '1.0.0' })).reduce(
        (sum, row) => sum + row.loads,
        0,
      );
    const before = await loads();
    expect(stablePeople.length).toBeGreaterThanOrEqual(12);
    for (const token of stablePeople.slice(8, 12)) {
      expect((await send(token, [report('1.0.0', { loadMs: [100, 200] })])).statusCode).toBe(202);
    }
    const deadline = Date.now() + 5 * TELEMETRY_WRITE_EVERY_MS;
    while ((await loads()) < before + 8 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await loads()).toBe(before + 8);
  });

  it('refuses a batch over 16 KiB with 413 and a person over the rate with 429, in problem+json', async () => {
    // Twenty versions, each within a page's bounds, together over the size limit.
    const samples = Array.from({ length: 20 }, (_, index) => 1000.123456 + index);
    const vitals = Array.from({ length: 100 }, () => ({
      name: 'INP' as const,
      rating: 'needs-improvement' as const,
    }));
    const big = Array.from({ length: 20 }, (_, index) =>
      report(`1.0.${index}`, { loadMs: samples, renderMs: samples, vitals }),
    );
    const tooLarge = await send(stablePeople[5]!, big);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(tooLarge.json()).toMatchObject({ code: 'payload_too_large' });

    const flooder = stablePeople[6]!;
    const statuses = [];
    for (let attempt = 0; attempt < 4; attempt += 1)
      statuses.push((await send(flooder, [report('1.0.0')])).statusCode);
    expect(statuses).toEqual([202, 202, 202, 429]);
    const limited = await send(flooder, [report('1.0.0')]);
    expect(limited.json()).toMatchObject({ code: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another person is not held back by the flooder.
    expect((await send(stablePeople[7]!, [report('1.0.0', { loadMs: [100] })])).statusCode).toBe(202);
  });

  it('refuses a batch that repeats a remote version, or a report no page could have produced, naming the field', async () => {
    const person = stablePeople[13]!;
    const before = await api.request({ url: '/api/admin/remotes/timeoff/health?minutes=60', token: admin });
    const refusals: Array<[VersionReport[], string, RegExp]> = [
      [
        [report('1.0.0', { loadMs: [100] }), report('1.0.0', { loadMs: [100] })],
        'reports.1',
        /repeats timeoff@1\.0\.0: a batch holds one report per remote version/,
      ],
      [
        [report('1.0.0', { failures: { download: 10, integrity: 10, timeout: 10, render: 0 } })],
        'reports.0.failures',
        /loads and failed loads together must be at most 20/,
      ],
      [
        [report('1.0.0', { failures: { download: 0, integrity: 0, timeout: 0, render: 5 } })],
        'reports.0.failures.render',
        /must not exceed the loads that succeeded/,
      ],
      [
        [report('1.0.0', { loadMs: [100], renderMs: [10, 20] })],
        'reports.0.renderMs',
        /more samples than loadMs/,
      ],
    ];
    for (const [reports, field, message] of refusals) {
      const refused = await send(person, reports);
      expect(refused.statusCode).toBe(400);
      expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
      const problem = refused.json<{ code: string; errors: Array<{ field: string; message: string }> }>();
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors).toContainEqual({ field, message: expect.stringMatching(message) as unknown });
    }
    const after = await api.request({ url: '/api/admin/remotes/timeoff/health?minutes=60', token: admin });
    expect(after.json<RemoteHealthDoc>().versions).toEqual(before.json<RemoteHealthDoc>().versions);
  });

  it("refuses a deployer's machine token with 403 personal_session_required: only the shell's people report", async () => {
    const refused = await send(deployer, [report('1.0.0', { loadMs: [100] })]);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      code: 'personal_session_required',
      detail:
        'Only a person signed in through the Atrium shell can report field telemetry; this token was issued to "atrium-deployer".',
    });
  });

  it('rolls a canary back once it has enough failing loads, and its people get stable on their next load', async () => {
    const steps = async (step: string) => {
      const line = (await metricsRegistry.metrics())
        .split('\n')
        .find((entry) => entry.startsWith(`atrium_rollout_steps_total{step="${step}"}`));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const rolledBackBefore = await steps('rolled_back');
    // The canary of beforeAll, on Prometheus too.
    expect(await steps('started')).toBeGreaterThanOrEqual(1);
    const failing = report('1.1.0', {
      loadMs: [120, 130, 140],
      failures: { download: 0, integrity: 0, timeout: 0, render: 3 },
    });
    // Six people: 18 attempts, below ROLLBACK_MIN_SAMPLES=20, however bad.
    const firstFailure = performance.now();
    for (const token of canaryPeople.slice(0, 6)) expect((await send(token, [failing])).statusCode).toBe(202);
    expect((await rollout()).state).toBe('running');
    expect(await versionFor(canaryPeople[0]!)).toBe('1.1.0');

    const crossing = await send(canaryPeople[6]!, [failing]);
    expect(crossing.statusCode).toBe(202);
    // Judged after the next write, within a second or so.
    let ended = await rollout();
    while (ended.state === 'running' && performance.now() - firstFailure < 10 * TELEMETRY_WRITE_EVERY_MS) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      ended = await rollout();
    }
    console.log(
      `first failing report to rollback: ${(performance.now() - firstFailure).toFixed(0)} ms over 7 reports ` +
        '(21 failed loads from 7 people, ROLLBACK_MIN_SAMPLES=20, ROLLBACK_MIN_REPORTERS=5)',
    );
    expect(ended).toMatchObject({ state: 'aborted', endedBy: 'atrium-api (automatic rollback)' });
    expect(ended.reason).toMatch(
      /canary 21\/21 failed \(100.0 %\) from 7 people, stable 0\/\d+ \(0.0 %\) from 10 people.*z = [\d.]+ > 2.33/,
    );
    for (const token of canaryPeople) expect(await versionFor(token)).toBe('1.0.0');
    expect(await steps('rolled_back')).toBe(rolledBackBefore + 1);

    const [event] = (await api.request({ url: '/api/audit?pageSize=1', token: admin })).json<AuditBody>()
      .items;
    expect(event).toMatchObject({
      actor: 'atrium-api (automatic rollback)',
      action: 'remote.rollout.rolled_back',
      target: 'timeoff@1.1.0',
      details: {
        stableVersion: '1.0.0',
        canary: { attempts: 21, failures: 21, reporters: 7 },
        stable: { failures: 0, reporters: 10 },
        policy: { minSamples: 20, minReporters: 5, minDifference: 0.02, z: 2.33 },
      },
    });
    expect(event!.details['reason']).toBe(ended.reason);
    // The API's own log line says so.
    expect(logLines.find((line) => line['context'] === 'CanaryJudge')).toMatchObject({
      level: 40,
      msg: `rolled back timeoff@1.1.0: ${ended.reason}`,
    });
    // A report about the rolled-back canary, sent after its person got stable, is ignored.
    expect((await send(canaryPeople[7]!, [failing])).json()).toEqual({ accepted: 0, ignored: 1 });
  });

  it('counts nothing of an ended canary towards the same version started again', async () => {
    const start = () =>
      api.request({
        method: 'POST',
        url: '/api/remotes/timeoff/rollout',
        token: deployer,
        body: { version: '1.1.0', percent: 50 },
      });
    const evidence = async () =>
      (
        await api.request({ url: '/api/admin/remotes/timeoff/health?minutes=60', token: admin })
      ).json<RemoteHealthDoc>().canary;
    expect((await start()).statusCode).toBe(201);
    // Other people than the earlier tests': each person has a rate of three batches a minute.
    expect((await send(canaryPeople[9]!, [report('1.1.0', { loadMs: [100] })])).json()).toEqual({
      accepted: 1,
      ignored: 0,
    });
    expect((await send(stablePeople[14]!, [report('1.0.0', { loadMs: [100] })])).statusCode).toBe(202);
    expect(await evidence()).toMatchObject({ canary: { reporters: 1 }, stable: { reporters: 1 } });
    const aborted = await api.request({
      method: 'POST',
      url: '/api/remotes/timeoff/rollout/abort',
      token: deployer,
      body: {},
    });
    expect(aborted.statusCode).toBe(200);
    // Started again within the same minute, hour and day: the windows count from its own start.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await start()).statusCode).toBe(201);
    expect(await evidence()).toMatchObject({
      canary: { attempts: 0, reporters: 0 },
      stable: { attempts: 0, reporters: 0 },
    });
  });

  it('deletes aggregates older than the retention', async () => {
    const service = api.app.get(TelemetryService);
    const orm = api.app.get(MikroORM);
    await RequestContext.create(orm.em, async () => {
      expect(await service.prune(new Date())).toBe(0);
      expect(await service.prune(new Date(Date.now() + 31 * 24 * 3_600_000))).toBeGreaterThan(0);
    });
    const health = await api.request({ url: '/api/admin/remotes/timeoff/health', token: admin });
    expect(health.json<RemoteHealthDoc>().versions).toEqual([]);
  });
});
