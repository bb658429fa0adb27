import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import type { BoundToken } from '@atrium/test-support/dpop';
import { adminQuery } from '@atrium/test-support/postgres';
import { fetchDeployerToken, fetchPlatformToken } from '@atrium/test-support/keycloak';
import { signIn } from '@atrium/test-support/browser';
import { type RealmAdmin, realmAdmin } from '@atrium/test-support/keycloak';
import { releaseHashes } from '@atrium/test-support/releases';
import { cohortBucket, type RolloutDoc } from '../rollout/index.js';
import { TELEMETRY_WRITE_EVERY_MS } from './telemetry.service.js';
import type { RemoteHealthDoc, VersionReport } from './telemetry.schemas.js';

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');

const STABLE = '1.0.0';
const CANARY = '1.1.0';
/** The policy of this test: small, so a journey's worth of people decides; the cap is the default, one load. */
const POLICY = { minSamples: 10, minReporters: 4, maxLoadsPerPerson: 1 };
/** People on each side of a 50 % canary: attackers (ordinary accounts, as anyone can register) and others. */
const SIDES = { canary: 12, stable: 13 } as const;

/*
 * Field telemetry as an attacker sends it: ordinary accounts of the real Keycloak realm (made through its admin
 * API with the default role a self-registered account gets, `atrium-user`; signed in through the login form with
 * their own OIDC client code, PKCE and a DPoP key of their own), sending what they like to the real API on
 * PostgreSQL. Each attack is refused or outweighed, and a canary that really fails for ordinary people is still
 * rolled back. (The browser's side, a remote forging another remote's outcome, is e2e/telemetry-attacks.e2e.ts.)
 */
describe('field telemetry that no one identity can steer', () => {
  const suffix = randomBytes(3).toString('hex');
  const remote = `itsteer${suffix}`;
  let api: TestApp;
  let keycloak: RealmAdmin;
  let deployer: string;
  let platform: string;
  const people: Record<keyof typeof SIDES, BoundToken[]> = { canary: [], stable: [] };

  beforeAll(async () => {
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      TELEMETRY_REPORTS_PER_MINUTE: '30',
      ROLLBACK_MIN_SAMPLES: String(POLICY.minSamples),
      ROLLBACK_MIN_REPORTERS: String(POLICY.minReporters),
      ROLLBACK_MAX_LOADS_PER_PERSON: String(POLICY.maxLoadsPerPerson),
    });
    await api.waitForIssuer();
    keycloak = realmAdmin(issuer);
    for (
      let index = 0;
      people.canary.length < SIDES.canary || people.stable.length < SIDES.stable;
      index += 1
    ) {
      const person = await keycloak.createPerson({
        username: `it-steer${index}-${suffix}`,
        realmRoles: ['atrium-user'],
      });
      const side = cohortBucket(remote, person.id) < 50 ? 'canary' : 'stable';
      if (people[side].length < SIDES[side])
        people[side].push(await signIn(issuer, person.username, person.password));
    }
    deployer = await fetchDeployerToken(issuer);
    platform = await fetchPlatformToken(issuer);
    const created = await api.request({
      method: 'POST',
      url: '/api/remotes',
      token: platform,
      body: { name: remote, title: 'Steer', path: `/${remote}`, owner: 'atrium-deployer' },
    });
    expect(created.statusCode).toBe(201);
    for (const version of [STABLE, CANARY]) {
      const published = await api.request({
        method: 'POST',
        url: `/api/remotes/${remote}/versions`,
        token: deployer,
        body: {
          version,
          manifestUrl: `http://localhost:4100/${remote}/${version}/mf-manifest.json`,
          ...releaseHashes(remote, version),
          activate: version === STABLE,
        },
      });
      expect(published.statusCode).toBe(201);
    }
    const started = await api.request({
      method: 'POST',
      url: `/api/remotes/${remote}/rollout`,
      token: deployer,
      body: { version: CANARY, percent: 50 },
    });
    expect(started.statusCode).toBe(201);
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

  const report = (version: string, extra: Partial<VersionReport> = {}): VersionReport => ({
    remote,
    version,
    loadMs: [],
    renderMs: [],
    failures: { download: 0, integrity: 0, timeout: 0, render: 0 },
    vitals: [],
    ...extra,
  });
  /** What one page can report at most: twenty loads tried, all of them failed. */
  const allFailed = (version: string) =>
    report(version, { failures: { download: 10, integrity: 5, timeout: 5, render: 0 } });
  /** Loads that worked, as many as one page can report. */
  const allWorked = (version: string, loads = 20) =>
    report(version, {
      loadMs: Array.from({ length: loads }, () => 150),
      renderMs: Array.from({ length: loads }, () => 30),
    });
  const send = (token: BoundToken | string, reports: VersionReport[]) =>
    api.request({ method: 'POST', url: '/api/telemetry', token, body: { reports } });
  const rollout = async () =>
    (await api.request({ url: `/api/remotes/${remote}/rollout`, token: platform })).json<{
      rollout: RolloutDoc;
    }>().rollout;
  /** The running canary's numbers as the admin console shows them, once this replica has written what it got. */
  const canaryHealth = async () => {
    await new Promise((resolve) => setTimeout(resolve, 2 * TELEMETRY_WRITE_EVERY_MS));
    const health = await api.request({
      url: `/api/admin/remotes/${remote}/health?minutes=60`,
      token: platform,
    });
    expect(health.statusCode).toBe(200);
    return health.json<RemoteHealthDoc>().canary;
  };

  it("refuses a deployer's and the platform's machine tokens with 403 personal_session_required", async () => {
    for (const [token, client] of [
      [deployer, 'atrium-deployer'],
      [platform, 'atrium-platform'],
    ] as const) {
      const refused = await send(token, [allFailed(CANARY)]);
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(refused.json()).toMatchObject({
        code: 'personal_session_required',
        detail: `Only a person signed in through the Atrium shell can report field telemetry; this token was issued to "${client}".`,
      });
    }
  });

  it('refuses whole the batch of twenty identical failing reports of its canary that one account sends', async () => {
    const [attacker] = people.canary;
    const refused = await send(
      attacker!,
      Array.from({ length: 20 }, () => allFailed(CANARY)),
    );
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      code: 'validation_failed',
      errors: expect.arrayContaining<unknown>([
        {
          field: 'reports.1',
          message: `repeats ${remote}@${CANARY}: a batch holds one report per remote version`,
        },
      ]) as unknown,
    });
    // And a single report claiming a hundred failures of each kind is no page's either.
    const inflated = await send(attacker!, [
      report(CANARY, { failures: { download: 100, integrity: 100, timeout: 100, render: 0 } }),
    ]);
    expect(inflated.statusCode).toBe(400);
    expect((await canaryHealth())?.canary).toEqual({ attempts: 0, failures: 0, reporters: 0 });
  });

  it('refuses the stable-side account that reports render failures without loads, which would push stable past 100 %', async () => {
    const [suppressor] = people.stable;
    const refused = await send(suppressor!, [
      report(STABLE, { failures: { download: 0, integrity: 0, timeout: 0, render: 20 } }),
    ]);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({
      errors: [
        {
          field: 'reports.0.failures.render',
          message: expect.stringContaining('loads that succeeded') as unknown,
        },
      ],
    });
    expect((await canaryHealth())?.stable).toEqual({ attempts: 0, failures: 0, reporters: 0 });
  });

  it('counts an account that reports its canary failing at a page maximum, over and over, as one person with one load a window', async () => {
    const [attacker] = people.canary;
    for (let batch = 0; batch < 10; batch += 1) {
      expect((await send(attacker!, [allFailed(CANARY)])).json()).toEqual({ accepted: 1, ignored: 0 });
    }
    const health = await canaryHealth();
    expect(health?.canary).toEqual({ attempts: 1, failures: 1, reporters: 1 });
    expect(health?.reason).toMatch(/fewer than 10 loads on a side$/);
    // The per-minute chart still shows everything that was reported: the cap is the verdict's.
    const chart = await api.request({
      url: `/api/admin/remotes/${remote}/health?minutes=60`,
      token: platform,
    });
    const canaryPoints = chart
      .json<RemoteHealthDoc>()
      .versions.find((entry) => entry.version === CANARY)!.points;
    expect(canaryPoints.reduce((sum, point) => sum + point.failures, 0)).toBe(200);
  });

  it('does not roll back a healthy canary for three accounts, one forging its failures and two forging loads of stable', async () => {
    // The two on the stable side claim all the loads a page can, every time, to make stable look well tried.
    for (const forger of people.stable.slice(1, 3)) {
      for (let batch = 0; batch < 5; batch += 1) {
        expect((await send(forger, [allWorked(STABLE)])).statusCode).toBe(202);
      }
    }
    // Everybody else uses it as usual: the canary works for them, and so does stable.
    for (const person of people.canary.slice(1, 10)) {
      expect((await send(person, [allWorked(CANARY, 1)])).json()).toEqual({ accepted: 1, ignored: 0 });
    }
    for (const person of people.stable.slice(3)) {
      expect((await send(person, [allWorked(STABLE, 1)])).json()).toEqual({ accepted: 1, ignored: 0 });
    }
    // As many loads and people as a rollback needs on both sides, and the canary is judged healthy.
    const health = await canaryHealth();
    expect(health).toMatchObject({
      canary: { attempts: 10, failures: 1, reporters: 10 },
      stable: { attempts: 12, failures: 0, reporters: 12 },
      needs: { loads: POLICY.minSamples, people: POLICY.minReporters },
    });
    expect(health?.reason).toMatch(/: z = [\d.]+, not worse beyond the thresholds$/);
    expect((await rollout()).state).toBe('running');
  });

  it('still rolls back a canary that really fails for ordinary people, and the audit entry names how many reported each side', async () => {
    // A stable-side account claims stable failed too, as much as one page can: one voice.
    const suppressed = await send(people.stable[0]!, [
      report(STABLE, { loadMs: [100], failures: { download: 19, integrity: 0, timeout: 0, render: 1 } }),
    ]);
    expect(suppressed.statusCode).toBe(202);
    // The canary's files are lost from the store: from now on it fails for everybody in its cohort.
    const started = Date.now();
    for (const person of people.canary.slice(1)) {
      expect((await send(person, [allFailed(CANARY)])).json()).toEqual({ accepted: 1, ignored: 0 });
    }
    let ended = await rollout();
    while (ended.state === 'running' && Date.now() - started < 10 * TELEMETRY_WRITE_EVERY_MS) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      ended = await rollout();
    }
    expect(ended).toMatchObject({ state: 'aborted', endedBy: 'atrium-api (automatic rollback)' });
    // Decided after the write that tipped it, whichever of the failing people's reports had arrived by then:
    // each person one load, at their own rate (20/21 for who had first loaded it fine).
    const verdict =
      /^canary ([\d.]+)\/(\d+) failed \([\d.]+ %\) from (\d+) people, stable 1\/13 \(7\.7 %\) from 13 people: worse by more than 2\.0 % with z = [\d.]+ > 2\.33/.exec(
        ended.reason ?? '',
      );
    expect(verdict, ended.reason ?? 'no reason').not.toBeNull();
    const [, failed, loads, reporters] = verdict!.map(Number);
    expect(loads).toBe(reporters);
    expect(reporters).toBeGreaterThanOrEqual(10);
    expect(failed! / loads!).toBeGreaterThan(0.9);
    const audit = await api.request({ url: '/api/audit?pageSize=20', token: platform });
    const event = audit
      .json<{ items: Array<{ action: string; target: string; details: Record<string, unknown> }> }>()
      .items.find(
        (item) => item.action === 'remote.rollout.rolled_back' && item.target === `${remote}@${CANARY}`,
      );
    expect(event?.details).toMatchObject({
      reason: ended.reason,
      canary: { attempts: loads, reporters },
      stable: { attempts: 13, failures: 1, reporters: 13 },
      policy: POLICY,
    });
    // Who reported about it is gone with the canary.
    expect(await canaryHealth()).toBeNull();
  });
});
