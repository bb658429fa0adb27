import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { registerRemote } from '../../test/registered-remote.js';
import type { BoundToken } from '@atrium/test-support/dpop';
import { adminQuery } from '@atrium/test-support/postgres';
import { fetchDeployerToken, fetchPlatformToken } from '@atrium/test-support/keycloak';
import { signIn } from '@atrium/test-support/browser';
import { type RealmAdmin, realmAdmin } from '@atrium/test-support/keycloak';
import { cohortBucket } from './cohort.js';

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');

const PEOPLE = 16;

/*
 * A 50 % canary on PostgreSQL with real Keycloak people (made for this test through Keycloak's admin API,
 * signed in through its login form with DPoP-bound tokens), served by two API instances on the same
 * database: every person gets the same version from both, on every call, and it is the one the documented
 * hash says. (Both instances run in this process; Passport's strategy registry is process-wide, so tokens are
 * checked by the second one's strategy; the registry, its EntityManager and connection pool are each
 * instance's own.)
 */
describe('a canary by identity across two API instances on PostgreSQL', () => {
  const suffix = randomBytes(3).toString('hex');
  const remote = `itcanary${suffix}`;
  const betaRole = `it-beta-${suffix}`;
  let replicas: TestApp[] = [];
  let keycloak: RealmAdmin;
  let deployer: string;
  let platform: string;
  const people: Array<{ sub: string; token: BoundToken }> = [];
  let betaTester: BoundToken;

  beforeAll(async () => {
    const env = {
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      ROLLBACK_MIN_SAMPLES: '10',
      ROLLBACK_MIN_REPORTERS: '3',
      ROLLBACK_MAX_LOADS_PER_PERSON: '10',
    };
    const first = await createTestApp(env);
    const second = await createTestApp(env, { migrate: false });
    replicas = [first, second];
    await Promise.all(replicas.map((replica) => replica.waitForIssuer()));
    keycloak = realmAdmin(issuer);
    await keycloak.createRole(betaRole);
    for (let index = 0; index < PEOPLE; index += 1) {
      const person = await keycloak.createPerson({
        username: `it-c${index}-${suffix}`,
        realmRoles: ['atrium-user'],
      });
      people.push({ sub: person.id, token: await signIn(issuer, person.username, person.password) });
    }
    const beta = await keycloak.createPerson({
      username: `it-beta-${suffix}`,
      realmRoles: ['atrium-user', betaRole],
    });
    betaTester = await signIn(issuer, beta.username, beta.password);

    deployer = await fetchDeployerToken(issuer);
    platform = await fetchPlatformToken(issuer);
    await registerRemote(first, {
      name: remote,
      title: 'Canary',
      platform,
      deployer,
      versions: ['1.0.0', '1.1.0'],
      active: '1.0.0',
    });
  });

  afterAll(async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await keycloak?.removeAll();
    await adminQuery(
      databaseUrl,
      `DELETE FROM audit_event WHERE target = '${remote}' OR split_part(target, '@', 1) = '${remote}'`,
      `DELETE FROM remote WHERE name = '${remote}'`,
    );
  });

  const servedBy = async (replica: TestApp, token: BoundToken) => {
    const response = await replica.request({ url: '/api/remotes', token });
    expect(response.statusCode).toBe(200);
    return response
      .json<{ remotes: Array<{ name: string; version: string }> }>()
      .remotes.find((entry) => entry.name === remote)?.version;
  };
  /**
   * What every replica serves `tokens` once a change made on one has reached the others: each replica's copy of
   * the registry is dropped by PostgreSQL's notification at the change's commit, which arrives a moment after
   * the answer to the change (ActiveRemotes). Waits at most a second, the bound the API promises.
   */
  const servedEverywhere = async (tokens: readonly BoundToken[], version: string) => {
    const started = Date.now();
    for (;;) {
      const served = await Promise.all(
        replicas.flatMap((replica) => tokens.map((token) => servedBy(replica, token))),
      );
      if (served.every((value) => value === version) || Date.now() - started > 1_000) return new Set(served);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it("refuses the remote's own deployer that aims a canary at administrators, or at any role the remote does not require", async () => {
    for (const roles of [['atrium-admin'], [betaRole], ['atrium-user', 'atrium-admin']]) {
      const refused = await replicas[0]!.request({
        method: 'POST',
        url: `/api/remotes/${remote}/rollout`,
        token: deployer,
        body: { version: '1.1.0', percent: 1, roles },
      });
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(refused.json()).toMatchObject({
        code: 'canary_audience_refused',
        detail: expect.stringContaining('Only an administrator can aim a canary') as unknown,
        // The remote requires no role, so every role named is beyond it.
        roles,
      });
    }
    // Nothing started: administrators are still served the stable version.
    const ada = await signIn(issuer, 'ada', 'ada');
    expect(await servedBy(replicas[0]!, ada)).toBe('1.0.0');
    const state = await replicas[0]!.request({ url: `/api/remotes/${remote}/rollout`, token: deployer });
    expect(state.json()).toEqual({ rollout: null });
  });

  it('splits the people by the hash of their sub, the same on every call and on both instances', async () => {
    // An administrator (here the platform pipeline, which holds the role) may aim it at a role as well.
    const started = await replicas[1]!.request({
      method: 'POST',
      url: `/api/remotes/${remote}/rollout`,
      token: platform,
      body: { version: '1.1.0', percent: 50, roles: [betaRole] },
    });
    expect(started.statusCode).toBe(201);

    const expected = people.map(({ sub }) => (cohortBucket(remote, sub) < 50 ? '1.1.0' : '1.0.0'));
    // Both halves are present, or the split would prove nothing (all 16 on one side: p = 2^-15).
    expect(new Set(expected)).toEqual(new Set(['1.0.0', '1.1.0']));
    for (let round = 0; round < 3; round += 1) {
      for (const replica of replicas) {
        const served = await Promise.all(people.map(({ token }) => servedBy(replica, token)));
        expect(served).toEqual(expected);
      }
    }
    // The beta tester gets it through the role, on both instances.
    expect(await Promise.all(replicas.map((replica) => servedBy(replica, betaTester)))).toEqual([
      '1.1.0',
      '1.1.0',
    ]);
  });

  it("refuses the deployer that widens a running canary to administrators, and leaves the canary's audience as it was", async () => {
    const widened = await replicas[0]!.request({
      method: 'PATCH',
      url: `/api/remotes/${remote}/rollout`,
      token: deployer,
      body: { roles: [betaRole, 'atrium-admin'] },
    });
    expect(widened.statusCode).toBe(403);
    expect(widened.json()).toMatchObject({
      code: 'canary_audience_refused',
      roles: [betaRole, 'atrium-admin'],
    });
    const state = await replicas[0]!.request({ url: `/api/remotes/${remote}/rollout`, token: deployer });
    expect(state.json()).toMatchObject({ rollout: { roles: [betaRole], percent: 50 } });
    // Its share is still the deployer's to change.
    const share = await replicas[0]!.request({
      method: 'PATCH',
      url: `/api/remotes/${remote}/rollout`,
      token: deployer,
      body: { percent: 50 },
    });
    expect(share.statusCode).toBe(200);
  });

  it('gives everybody the stable version on both instances once the canary is aborted on one', async () => {
    const aborted = await replicas[0]!.request({
      method: 'POST',
      url: `/api/remotes/${remote}/rollout/abort`,
      token: deployer,
      body: { reason: 'integration test' },
    });
    expect(aborted.statusCode).toBe(200);
    const everybody = [...people.map(({ token }) => token), betaTester];
    expect(await servedEverywhere(everybody, '1.0.0')).toEqual(new Set(['1.0.0']));
  });

  it('rolls back a canary whose people report render failures through the telemetry endpoint', async () => {
    const restarted = await replicas[0]!.request({
      method: 'POST',
      url: `/api/remotes/${remote}/rollout`,
      token: deployer,
      body: { version: '1.1.0', percent: 50 },
    });
    expect(restarted.statusCode).toBe(201);
    const inCanary = people.filter(({ sub }) => cohortBucket(remote, sub) < 50);
    const outside = people.filter(({ sub }) => cohortBucket(remote, sub) >= 50);
    // People report what they are served: the canary's people report it once both replicas serve it to them.
    expect(
      await servedEverywhere(
        inCanary.map(({ token }) => token),
        '1.1.0',
      ),
    ).toEqual(new Set(['1.1.0']));
    const report = (version: string, loads: number, renderFailures: number) => ({
      reports: [
        {
          remote,
          version,
          loadMs: Array.from({ length: loads }, (_, index) => 200 + index),
          renderMs: Array.from({ length: loads - renderFailures }, () => 50),
          failures: { download: 0, integrity: 0, timeout: 0, render: renderFailures },
          vitals: [{ name: 'LCP', rating: 'good' }],
        },
      ],
    });
    const send = (replica: TestApp, token: BoundToken, body: unknown) =>
      replica.request({ method: 'POST', url: '/api/telemetry', token, body });
    for (const [index, { token }] of outside.entries()) {
      const sent = await send(replicas[index % 2]!, token, report('1.0.0', 10, 0));
      expect(sent.json()).toEqual({ accepted: 1, ignored: 0 });
    }
    // Three canary people (ROLLBACK_MIN_REPORTERS) loaded it 10 times each and it threw on every render.
    expect(inCanary.length).toBeGreaterThanOrEqual(3);
    const firstFailure = Date.now();
    for (const [index, { token }] of inCanary.slice(0, 3).entries()) {
      const sent = await send(replicas[index % 2]!, token, report('1.1.0', 10, 10));
      expect(sent.json()).toEqual({ accepted: 1, ignored: 0 });
    }

    // The owning deployer reads its canary; the audit log is an administrator's. The replica that took the
    // last report decides after its next write, within a second or so.
    const readRollout = async () =>
      (await replicas[0]!.request({ url: `/api/remotes/${remote}/rollout`, token: deployer })).json<{
        rollout: { state: string; endedBy: string; reason: string };
      }>().rollout;
    let rollout = await readRollout();
    while (rollout.state === 'running' && Date.now() - firstFailure < 10_000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rollout = await readRollout();
    }
    const decided = Date.now();
    const ada = await signIn(issuer, 'ada', 'ada');
    const health = await replicas[1]!.request({ url: `/api/admin/remotes/${remote}/health`, token: ada });
    expect(rollout, `the numbers the API judged: ${health.body}`).toMatchObject({
      state: 'aborted',
      endedBy: 'atrium-api (automatic rollback)',
    });
    expect(rollout.reason).toMatch(
      /^canary 30\/30 failed \(100\.0 %\) from 3 people, stable 0\/\d+ \(0\.0 %\) from \d+ people.* > 2\.33/,
    );
    for (const replica of replicas) {
      const served = await Promise.all(inCanary.map(({ token }) => servedBy(replica, token)));
      expect(new Set(served)).toEqual(new Set(['1.0.0']));
    }
    const audit = await replicas[1]!.request({ url: '/api/audit?pageSize=20', token: ada });
    const event = audit
      .json<{ items: Array<{ action: string; target: string; details: Record<string, unknown> }> }>()
      .items.find(
        (item) => item.action === 'remote.rollout.rolled_back' && item.target === `${remote}@1.1.0`,
      );
    expect(event?.details).toMatchObject({
      reason: rollout.reason,
      canary: { attempts: 30, failures: 30, reporters: 3 },
      stable: { reporters: outside.length },
    });
    console.log(`first failing report to rollback: ${decided - firstFailure} ms`);
  });

  it('refuses a person without a deploy role who tries to start a canary', async () => {
    const alice = await signIn(issuer, 'alice', 'alice');
    const response = await replicas[0]!.request({
      method: 'POST',
      url: `/api/remotes/${remote}/rollout`,
      token: alice,
      body: { version: '1.1.0', percent: 100 },
    });
    expect(response.statusCode).toBe(403);
    expect(await servedBy(replicas[0]!, alice)).toBe('1.0.0');
  });
});
