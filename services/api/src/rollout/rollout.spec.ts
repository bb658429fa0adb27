import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { releaseHashes } from '@atrium/test-support/releases';
import { cohortBucket } from './cohort.js';
import type { RolloutDoc } from './rollout.schemas.js';

interface AuditBody {
  items: Array<{ actor: string; action: string; target: string; details: Record<string, unknown> }>;
}

/*
 * Canaries on SQLite with locally minted tokens: who may run them, who gets them, and what each step leaves
 * in the audit log. (The split across two API replicas on PostgreSQL with Keycloak's tokens is
 * rollout.int-spec.ts.)
 */
describe('canaries of a remote', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let deployer: string;
  let otherDeployer: string;
  let admin: string;
  let user: string;
  const people: Array<{ sub: string; token: string }> = [];
  let beta: string;

  const mintPerson = (sub: string, roles: string[] = ['atrium-user']) =>
    issuer.mint({
      claims: { sub, preferred_username: sub, azp: 'atrium-shell', realm_access: { roles } },
    });
  const serviceAccount = (clientId: string) =>
    issuer.mint({
      claims: {
        sub: `sa-${clientId}`,
        preferred_username: `service-account-${clientId}`,
        azp: clientId,
        realm_access: { roles: ['remote-publisher'] },
      },
    });

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer.issuer,
      OIDC_ALLOWED_CLIENTS: 'atrium-shell,atrium-deployer,atrium-platform,team-b-deployer',
    });
    await api.waitForIssuer();
    deployer = await serviceAccount('atrium-deployer');
    otherDeployer = await serviceAccount('team-b-deployer');
    admin = await mintPerson('ada', ['atrium-user', 'atrium-admin']);
    user = await mintPerson('alice');
    beta = await mintPerson('bea', ['atrium-user', 'beta-testers']);
    for (let index = 0; index < 40; index += 1) {
      const sub = `person-${index}`;
      people.push({ sub, token: await mintPerson(sub) });
    }
    const created = await api.request({
      method: 'POST',
      url: '/api/remotes',
      token: admin,
      body: { name: 'timeoff', title: 'Timeoff', path: '/timeoff', owner: 'atrium-deployer' },
    });
    expect(created.statusCode).toBe(201);
    for (const version of ['1.0.0', '1.1.0', '1.2.0']) {
      const published = await api.request({
        method: 'POST',
        url: '/api/remotes/timeoff/versions',
        token: deployer,
        body: {
          version,
          manifestUrl: `http://localhost:4100/timeoff/${version}/mf-manifest.json`,
          ...releaseHashes('timeoff', version),
        },
      });
      expect(published.statusCode).toBe(201);
    }
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  const rollout = (method: 'POST' | 'PATCH' | 'GET', path: string, token: string, body?: unknown) =>
    api.request({ method, url: `/api/remotes/timeoff/rollout${path}`, token, body });
  const versionFor = async (token: string) =>
    (await api.request({ url: '/api/remotes', token }))
      .json<{ remotes: Array<{ name: string; version: string }> }>()
      .remotes.find((remote) => remote.name === 'timeoff')?.version;
  const latestAudit = async (count: number) =>
    (await api.request({ url: `/api/audit?pageSize=${count}`, token: admin })).json<AuditBody>().items;
  const codeOf = (response: { json: <T>() => T }) => response.json<{ code: string }>().code;

  it('needs an active version to fall back to before a canary starts', async () => {
    const response = await rollout('POST', '', deployer, { version: '1.1.0', percent: 50 });
    expect(response.statusCode).toBe(409);
    expect(codeOf(response)).toBe('no_stable_version');
    const activated = await api.request({
      method: 'PUT',
      url: '/api/remotes/timeoff/active',
      token: deployer,
      body: { version: '1.0.0' },
    });
    expect(activated.statusCode).toBe(200);
  });

  it('refuses people without a deploy role, other teams and unknown or already active versions', async () => {
    const asUser = await rollout('POST', '', user, { version: '1.1.0', percent: 50 });
    expect([asUser.statusCode, codeOf(asUser)]).toEqual([403, 'insufficient_scope']);
    const asOtherTeam = await rollout('POST', '', otherDeployer, { version: '1.1.0', percent: 50 });
    expect([asOtherTeam.statusCode, codeOf(asOtherTeam)]).toEqual([403, 'not_remote_owner']);
    const unknown = await rollout('POST', '', deployer, { version: '9.9.9', percent: 50 });
    expect([unknown.statusCode, codeOf(unknown)]).toEqual([404, 'version_not_found']);
    const stable = await rollout('POST', '', deployer, { version: '1.0.0', percent: 50 });
    expect([stable.statusCode, codeOf(stable)]).toEqual([400, 'validation_failed']);
    const tooMuch = await rollout('POST', '', deployer, { version: '1.1.0', percent: 101 });
    expect([tooMuch.statusCode, codeOf(tooMuch)]).toEqual([400, 'validation_failed']);
    expect(await versionFor(user)).toBe('1.0.0');
  });

  it('refuses the deployer that aims a canary at administrators: only an administrator names roles the remote does not require', async () => {
    const atAdmins = await rollout('POST', '', deployer, { version: '1.1.0', roles: ['atrium-admin'] });
    expect([atAdmins.statusCode, codeOf(atAdmins)]).toEqual([403, 'canary_audience_refused']);
    expect(atAdmins.json()).toMatchObject({
      detail:
        'Only an administrator can aim a canary of "timeoff" at the role atrium-admin, which the remote does ' +
        'not require. Aim it at a share of people instead, or ask an administrator.',
      roles: ['atrium-admin'],
      requiredRoles: [],
    });
    expect(await versionFor(admin)).toBe('1.0.0');
    expect((await rollout('GET', '', deployer)).json()).toEqual({ rollout: null });
  });

  it('serves a 50 % canary to the people whose bucket is below 50, the same on every call', async () => {
    const started = await rollout('POST', '', admin, {
      version: '1.1.0',
      percent: 50,
      roles: ['beta-testers'],
    });
    expect(started.statusCode).toBe(201);
    expect(started.json<RolloutDoc>()).toMatchObject({
      version: '1.1.0',
      stableVersion: '1.0.0',
      percent: 50,
      roles: ['beta-testers'],
      state: 'running',
      startedBy: 'ada',
    });
    const expected = people.map(({ sub }) => (cohortBucket('timeoff', sub) < 50 ? '1.1.0' : '1.0.0'));
    for (let round = 0; round < 3; round += 1) {
      const served = await Promise.all(people.map(({ token }) => versionFor(token)));
      expect(served).toEqual(expected);
    }
    // Both halves are non-empty among 40 people, or this test would prove nothing.
    expect(new Set(expected)).toEqual(new Set(['1.0.0', '1.1.0']));

    const [event] = await latestAudit(1);
    expect(event).toMatchObject({
      action: 'remote.rollout.started',
      target: 'timeoff@1.1.0',
      details: { stableVersion: '1.0.0', percent: 50, roles: ['beta-testers'] },
    });
    const again = await rollout('POST', '', deployer, { version: '1.2.0', percent: 10 });
    expect([again.statusCode, codeOf(again)]).toEqual([409, 'rollout_in_progress']);
  });

  it('gives the canary to holders of its roles whatever their bucket', async () => {
    const widened = await rollout('PATCH', '', deployer, { roles: ['beta-testers', 'atrium-admin'] });
    expect([widened.statusCode, codeOf(widened)]).toEqual([403, 'canary_audience_refused']);
    expect(widened.json()).toMatchObject({ roles: ['beta-testers', 'atrium-admin'] });
    const narrowed = await rollout('PATCH', '', deployer, { percent: 0 });
    expect(narrowed.statusCode).toBe(200);
    expect(await versionFor(beta)).toBe('1.1.0');
    const served = await Promise.all(people.map(({ token }) => versionFor(token)));
    expect(new Set(served)).toEqual(new Set(['1.0.0']));
    const [event] = await latestAudit(1);
    expect(event).toMatchObject({
      action: 'remote.rollout.changed',
      details: { changes: { percent: { from: 50, to: 0 } } },
    });
  });

  it('widens: nobody who had the canary loses it', async () => {
    await rollout('PATCH', '', deployer, { percent: 20 });
    const at20 = await Promise.all(people.map(({ token }) => versionFor(token)));
    await rollout('PATCH', '', admin, { percent: 60 });
    const at60 = await Promise.all(people.map(({ token }) => versionFor(token)));
    expect(at20.every((version, index) => version !== '1.1.0' || at60[index] === '1.1.0')).toBe(true);
    expect(at60.filter((version) => version === '1.1.0').length).toBeGreaterThan(
      at20.filter((version) => version === '1.1.0').length,
    );
  });

  it('aborts: everybody gets the stable version, the reason is audited', async () => {
    const asOtherTeam = await rollout('POST', '/abort', otherDeployer, {});
    expect(codeOf(asOtherTeam)).toBe('not_remote_owner');
    const aborted = await rollout('POST', '/abort', deployer, { reason: 'error budget burnt' });
    expect(aborted.statusCode).toBe(200);
    expect(aborted.json<RolloutDoc>()).toMatchObject({ state: 'aborted', reason: 'error budget burnt' });
    expect(
      new Set([await versionFor(beta), ...(await Promise.all(people.map((p) => versionFor(p.token))))]),
    ).toEqual(new Set(['1.0.0']));
    // Open pages hear of it, so one that was served the canary and has not loaded it yet never does.
    const listed = (await api.request({ url: '/api/remotes', token: beta })).json<{ withdrawn: unknown[] }>();
    expect(listed.withdrawn).toEqual([
      { name: 'timeoff', version: '1.1.0', kind: 'rolled-back', reason: 'error budget burnt' },
    ]);
    const [event] = await latestAudit(1);
    expect(event).toMatchObject({
      actor: 'service-account-atrium-deployer',
      action: 'remote.rollout.aborted',
      details: { reason: 'error budget burnt' },
    });
    const again = await rollout('POST', '/abort', deployer, {});
    expect([again.statusCode, codeOf(again)]).toEqual([409, 'no_rollout']);
    const state = await rollout('GET', '', admin);
    expect(state.json<{ rollout: RolloutDoc }>().rollout).toMatchObject({
      state: 'aborted',
      version: '1.1.0',
    });
  });

  it('promotes: the canary becomes the active version for everybody, audited as both', async () => {
    expect((await rollout('POST', '', admin, { version: '1.2.0', percent: 5 })).statusCode).toBe(201);
    const promoted = await rollout('POST', '/promote', deployer);
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json<RolloutDoc>()).toMatchObject({ state: 'promoted', stableVersion: '1.2.0' });
    expect(new Set(await Promise.all(people.map((p) => versionFor(p.token))))).toEqual(new Set(['1.2.0']));
    const [promotion, activation] = await latestAudit(2);
    expect(promotion).toMatchObject({
      action: 'remote.rollout.promoted',
      details: { previousVersion: '1.0.0' },
    });
    expect(activation).toMatchObject({
      action: 'remote.version.activated',
      target: 'timeoff@1.2.0',
      details: { via: 'canary promotion' },
    });
  });
});
