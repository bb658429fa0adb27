import { afterEach, describe, expect, it, vi } from 'vitest';
import { ReleaseError } from './release-error.ts';
import { describeRollout, rolloutStep, type RolloutDocument } from './rollout-client.ts';
import { parseRolloutArgs } from './rollout.ts';

afterEach(() => vi.unstubAllGlobals());

const running: RolloutDocument = {
  remote: 'profile',
  version: '1.3.0',
  stableVersion: '1.2.0',
  percent: 10,
  roles: ['beta-testers'],
  state: 'running',
  startedBy: 'service-account-atrium-deployer',
  startedAt: '2026-11-27T10:00:00.000Z',
  updatedAt: '2026-11-27T10:00:00.000Z',
  endedBy: null,
  endedAt: null,
  reason: null,
};

/** Records what the CLI sends to the API and answers with `answer`. */
function fakeApi(answer: Response): Array<{ url: string; method: string; body: unknown }> {
  const calls: Array<{ url: string; method: string; body: unknown }> = [];
  vi.stubGlobal('fetch', (url: string, init?: RequestInit): Promise<Response> => {
    calls.push({
      url,
      method: init?.method ?? 'GET',
      body: init?.body === undefined ? undefined : JSON.parse(init.body as string),
    });
    return Promise.resolve(answer);
  });
  return calls;
}

describe('release CLI rollout', () => {
  it('reads each step from the command line', () => {
    expect(parseRolloutArgs(['start', '1.3.0', '--percent', '10', '--role', 'beta-testers'])).toEqual({
      kind: 'start',
      version: '1.3.0',
      percent: 10,
      roles: ['beta-testers'],
    });
    expect(parseRolloutArgs(['widen', '--percent', '50'])).toEqual({ kind: 'change', percent: 50 });
    expect(parseRolloutArgs(['promote'])).toEqual({ kind: 'promote' });
    expect(parseRolloutArgs(['abort', '--reason', 'errors up'])).toEqual({
      kind: 'abort',
      reason: 'errors up',
    });
    expect(() => parseRolloutArgs(['widen'])).toThrow(ReleaseError);
    expect(() => parseRolloutArgs(['start'])).toThrow(ReleaseError);
    expect(() => parseRolloutArgs(['start', '1.3.0', '--percent', '150'])).toThrow(/0 to 100/);
  });

  it('sends each step to its route with the deployer token', async () => {
    const steps = [
      { step: { kind: 'start', version: '1.3.0', percent: 10 }, method: 'POST', path: '' },
      { step: { kind: 'change', percent: 50 }, method: 'PATCH', path: '' },
      { step: { kind: 'promote' }, method: 'POST', path: '/promote' },
      { step: { kind: 'abort', reason: 'x' }, method: 'POST', path: '/abort' },
    ] as const;
    for (const { step, method, path } of steps) {
      const calls = fakeApi(Response.json(running));
      await rolloutStep({ apiUrl: 'http://api.test/', token: 't', remote: 'profile', step });
      const { kind: _kind, ...body } = step;
      expect(calls).toEqual([{ url: `http://api.test/api/remotes/profile/rollout${path}`, method, body }]);
    }
    const calls = fakeApi(Response.json({ rollout: running }));
    expect(
      await rolloutStep({
        apiUrl: 'http://api.test',
        token: 't',
        remote: 'profile',
        step: { kind: 'status' },
      }),
    ).toEqual(running);
    expect(calls[0]).toMatchObject({ method: 'GET', body: undefined });
  });

  it("passes the API's explanation on, with what to do when the caller is not the owner", async () => {
    fakeApi(
      Response.json(
        { code: 'not_remote_owner', detail: 'Remote "profile" is owned by the deployer client "team-a".' },
        { status: 403 },
      ),
    );
    await expect(
      rolloutStep({ apiUrl: 'http://api.test', token: 't', remote: 'profile', step: { kind: 'promote' } }),
    ).rejects.toThrow(/owned by the deployer client "team-a".*ATRIUM_DEPLOYER_CLIENT_ID/);
    fakeApi(
      Response.json({ code: 'no_rollout', detail: 'Remote "profile" runs no canary.' }, { status: 409 }),
    );
    await expect(
      rolloutStep({ apiUrl: 'http://api.test', token: 't', remote: 'profile', step: { kind: 'abort' } }),
    ).rejects.toThrow('Remote "profile" runs no canary. (no_rollout)');
  });

  it('describes the canary in one line', () => {
    expect(describeRollout('profile', running)).toBe(
      'profile: canary 1.3.0 runs for 10 % of people and roles beta-testers; everybody else gets 1.2.0',
    );
    expect(
      describeRollout('profile', {
        ...running,
        state: 'aborted',
        endedBy: 'atrium-api (automatic rollback)',
        reason: 'failure rate',
      }),
    ).toBe(
      'profile: canary 1.3.0 was aborted by atrium-api (automatic rollback) (failure rate); everybody gets 1.2.0',
    );
    expect(describeRollout('profile', null)).toBe('profile: no canary has run');
  });
});
