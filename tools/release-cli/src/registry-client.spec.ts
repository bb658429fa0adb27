import { afterEach, describe, expect, it, vi } from 'vitest';
import { activateVersion, registerVersion, VersionExistsError } from './registry-client.ts';
import { ReleaseError } from './release-error.ts';

afterEach(() => vi.unstubAllGlobals());

/** Stands in for the API: records the request and answers `answer`. */
function fakeApi(answer: Response) {
  const requests: Array<{ url: string; method: string | undefined; body: unknown }> = [];
  vi.stubGlobal('fetch', (url: string, init?: RequestInit) => {
    requests.push({ url, method: init?.method, body: JSON.parse(init?.body as string) });
    return Promise.resolve(answer);
  });
  return requests;
}

const problem = (status: number, body: Record<string, unknown>) =>
  Response.json(body, { status, headers: { 'Content-Type': 'application/problem+json' } });
const rollback = () =>
  activateVersion({ apiUrl: 'http://api.test/', token: 'token', remote: 'leave', version: '0.1.0' });

describe('activateVersion (the rollback CLI)', () => {
  it("PUTs the version to the remote's active route and says what is live", async () => {
    const requests = fakeApi(Response.json({ name: 'leave', activeVersion: '0.1.0' }));
    await expect(rollback()).resolves.toEqual({ name: 'leave', activeVersion: '0.1.0' });
    expect(requests).toEqual([
      { url: 'http://api.test/api/remotes/leave/active', method: 'PUT', body: { version: '0.1.0' } },
    ]);
  });

  it("explains the registry's refusals: an unknown version, another owner's remote", async () => {
    fakeApi(problem(404, { code: 'version_not_found', detail: 'Remote "leave" has no version 0.1.0.' }));
    await expect(rollback()).rejects.toThrow(
      'Remote "leave" has no version 0.1.0. Name a version that was published',
    );
    fakeApi(problem(403, { code: 'not_remote_owner', detail: 'Remote "leave" is owned by "team-b".' }));
    await expect(rollback()).rejects.toThrow(new ReleaseError('Remote "leave" is owned by "team-b".'));
  });
});

describe('registerVersion (the release CLI)', () => {
  const register = () =>
    registerVersion({
      apiUrl: 'http://api.test',
      token: 'token',
      remote: 'leave',
      registration: {
        version: '1.0.0',
        manifestUrl: 'https://cdn.test/leave/1.0.0/mf-manifest.json',
        integrity: 'sha384-a',
        manifestIntegrity: 'sha384-b',
      },
    });

  it('says to allow the origin when the API refuses it, by its code (remote_origin_refused)', async () => {
    fakeApi(
      problem(400, {
        code: 'remote_origin_refused',
        detail: 'The request is invalid: manifestUrl: origin https://cdn.test is not allowed.',
        errors: [{ field: 'manifestUrl', message: 'origin https://cdn.test is not allowed' }],
      }),
    );
    await expect(register()).rejects.toThrow(
      /origin https:\/\/cdn\.test is not allowed.*ALLOWED_REMOTE_ORIGINS/,
    );
  });

  it('says a version is immutable and how to publish another', async () => {
    fakeApi(
      problem(409, {
        code: 'version_exists',
        detail: 'Remote "leave" already has version 1.0.0; versions are immutable, publish a new one.',
      }),
    );
    const refusal = register();
    await expect(refusal).rejects.toBeInstanceOf(VersionExistsError);
    await expect(refusal).rejects.toThrow(/already has version 1\.0\.0.*pass --version/);
  });
});
