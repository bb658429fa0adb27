import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REMOTE_NAME_RULE } from '@atrium/sdk/remote-rules';
import { publishRelease, readRemotePackage, type ReleaseTarget } from './publish-release.ts';
import { fixtureFolder, leaveFeature, writeFixtureBuild } from './release-fixtures.ts';
import { TypeContractError } from './release-types.ts';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'atrium-publish-spec-'));
});
afterEach(() => {
  vi.unstubAllGlobals();
  rmSync(work, { recursive: true, force: true });
});

const sha384 = (bytes: Buffer) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

/**
 * Stands in for Keycloak and the API: answers discovery and the token, the remote's active version
 * (`active.version`, none at first), records what the CLI registers and answers it with `answer` (by default
 * 201).
 */
function fakeServers(
  answer?: () => Response,
  active: { version: string | null } = { version: null },
): {
  registrations: Array<{ url: string; body: Record<string, unknown> }>;
} {
  const registrations: Array<{ url: string; body: Record<string, unknown> }> = [];
  vi.stubGlobal('fetch', (url: string, init?: RequestInit): Promise<Response> => {
    if (url.endsWith('/.well-known/openid-configuration')) {
      return Promise.resolve(Response.json({ token_endpoint: 'http://issuer.test/token' }));
    }
    if (url === 'http://issuer.test/token') return Promise.resolve(Response.json({ access_token: 'token' }));
    if (init?.method === 'GET' && url === 'http://api.test/api/remotes/leave/versions') {
      return Promise.resolve(
        Response.json({ remote: { name: 'leave', activeVersion: active.version }, versions: [] }),
      );
    }
    const body = JSON.parse(init?.body as string) as Record<string, unknown>;
    registrations.push({ url, body });
    if (answer) return Promise.resolve(answer());
    return Promise.resolve(
      Response.json(
        {
          remote: { name: 'leave', activeVersion: null },
          version: { version: body['version'], active: false, publishedBy: 'atrium-deployer' },
        },
        { status: 201 },
      ),
    );
  });
  return { registrations };
}

/** A built remote in `work/dist`: a manifest naming js/entry.js, and that file. */
function writeBuild(): string {
  const dist = join(work, 'dist');
  mkdirSync(join(dist, 'js'), { recursive: true });
  // Odd spacing on purpose: the hash is of the exact bytes, not of the parsed JSON.
  writeFileSync(
    join(dist, 'mf-manifest.json'),
    '{ "metaData":  { "publicPath": "auto", "remoteEntry": { "path": "js", "name": "entry.js" } } }\n',
  );
  writeFileSync(join(dist, 'js/entry.js'), 'var leave = {};');
  writeFileSync(join(dist, 'remoteEntry.js'), 'not the entry');
  return dist;
}

const target = (): ReleaseTarget => ({
  storeDir: join(work, 'store'),
  storeUrl: 'http://store.test',
  apiUrl: 'http://api.test',
  issuer: 'http://issuer.test/realms/atrium',
  clientId: 'atrium-deployer',
  clientSecret: 'secret',
});

const leave = () => ({
  dir: work,
  version: '1.2.0',
  atrium: {
    remote: 'leave',
    title: 'Leave',
    route: '/leave',
    navOrder: 20,
    requiredRoles: [],
    owner: 'atrium-deployer',
  },
});

const problem = (status: number, code: string, detail: string) =>
  Response.json({ type: `urn:atrium:problem:${code}`, title: code, status, code, detail }, { status });

describe('readRemotePackage', () => {
  it("refuses a remote name that breaks the rule with the registry's own sentence, before building", () => {
    const dir = join(work, 'time-off');
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({
        version: '1.0.0',
        atrium: { remote: 'time-off', title: 'Time off', route: '/time-off', owner: 'atrium-deployer' },
      }),
    );
    expect(() => readRemotePackage(dir)).toThrow(`"atrium.remote" ${REMOTE_NAME_RULE}.`);
  });
});

describe('publishRelease', () => {
  it.each([
    [
      'the remote does not exist',
      () => problem(404, 'remote_not_found', 'No remote is registered as "leave".'),
      /no remote "leave": an administrator must create it first/,
    ],
    [
      'the release shares a package the shell does not provide in its range',
      () =>
        problem(
          409,
          'shared_dependency_conflict',
          'Remote "leave" 1.2.0 cannot run beside what is live: it needs react ^20.0.0, and the shell provides 19.3.1.',
        ),
      /it needs react \^20\.0\.0, and the shell provides 19\.3\.1\. Build the release against what is live/,
    ],
    [
      'another client owns the remote',
      () =>
        problem(
          403,
          'not_remote_owner',
          'Remote "leave" is owned by the deployer client "team-b-deployer": only its owner may publish its versions.',
        ),
      /owned by the deployer client "team-b-deployer".*Publish with the owner's credentials/,
    ],
  ])('says what to do when %s', async (_case, answer, message) => {
    fakeServers(answer);
    await expect(
      publishRelease({ remote: leave(), target: target(), sourceDir: writeBuild(), log: () => undefined }),
    ).rejects.toThrow(message);
  });

  it('registers the SRI hashes of the built manifest, byte for byte, and of the remoteEntry.js it names, with the manifest itself', async () => {
    const { registrations } = fakeServers();
    const to = target();

    await publishRelease({ remote: leave(), target: to, sourceDir: writeBuild(), log: () => undefined });

    const stored = join(to.storeDir, 'leave/1.2.0');
    expect(registrations).toHaveLength(1);
    expect(registrations[0]?.url).toBe('http://api.test/api/remotes/leave/versions');
    expect(registrations[0]?.body).toMatchObject({
      version: '1.2.0',
      manifestUrl: 'http://store.test/leave/1.2.0/mf-manifest.json',
      integrity: sha384(readFileSync(join(stored, 'js/entry.js'))),
      manifestIntegrity: sha384(readFileSync(join(stored, 'mf-manifest.json'))),
    });
    expect(registrations[0]?.body['manifestIntegrity']).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    // The manifest's exact text, so the API checks the packages it shares in the very bytes the hash vouches for.
    expect(sha384(Buffer.from(registrations[0]?.body['manifest'] as string))).toBe(
      registrations[0]?.body['manifestIntegrity'],
    );
    // Who sees a remote and where it appears are an administrator's settings, never sent with a version.
    expect(Object.keys(registrations[0]?.body ?? {}).sort()).toEqual(
      ['activate', 'integrity', 'manifest', 'manifestIntegrity', 'manifestUrl', 'version'].sort(),
    );
  });

  it('registers nothing when someone changes the stored files while it publishes: the hashes come from the build', async () => {
    const { registrations } = fakeServers();
    const to = target();
    const stored = join(to.storeDir, 'leave/1.2.0');
    // The attacker can write to the store and swaps the entry the moment the release lands there.
    const tamper = (line: string) => {
      if (line.startsWith('uploaded to'))
        writeFileSync(join(stored, 'js/entry.js'), 'var leave = {}; pwn();');
    };

    await expect(
      publishRelease({ remote: leave(), target: to, sourceDir: writeBuild(), log: tamper }),
    ).rejects.toThrow(/differ from the build just uploaded.*Nothing was registered/);
    expect(registrations).toHaveLength(0);
  });
});

// The TypeScript compiler runs in each case: seconds of CPU, more than vitest's default 5 s on a busy machine.
describe("publishRelease's type contract", { timeout: 60_000 }, () => {
  let fixtures: string;
  beforeEach(() => {
    fixtures = fixtureFolder();
  });
  afterEach(() => rmSync(fixtures, { recursive: true, force: true }));

  /** Publishes 1.0.0 of "leave" (a Feature with an optional title prop) and makes the fake API say it is active. */
  async function activeRelease(): Promise<{
    registrations: Array<{ url: string; body: Record<string, unknown> }>;
    to: ReleaseTarget;
  }> {
    const active = { version: null as string | null };
    const { registrations } = fakeServers(undefined, active);
    const to = target();
    const first = writeFixtureBuild(fixtures, '1.0.0', leaveFeature());
    await publishRelease({
      remote: leave(),
      target: to,
      version: '1.0.0',
      sourceDir: first,
      log: () => undefined,
    });
    active.version = '1.0.0';
    return { registrations, to };
  }

  it('refuses a release whose Feature no longer takes a prop, uploading and registering nothing; --breaking publishes it, marked', async () => {
    const { registrations, to } = await activeRelease();
    const next = writeFixtureBuild(fixtures, '2.0.0', leaveFeature({ without: 'title' }));
    const publish = (breaking: boolean, log: (line: string) => void = () => undefined) =>
      publishRelease({ remote: leave(), target: to, version: '2.0.0', sourceDir: next, breaking, log });

    const refusal = await publish(false).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(TypeContractError);
    expect((refusal as Error).message).toBe(
      'leave 2.0.0 breaks the types of the active release 1.0.0:\n' +
        '- ./Feature: Feature: prop title was removed\n' +
        'Consumers written against 1.0.0 would fail to typecheck, or break when they run it. Make the change ' +
        'compatible (an optional prop, a type that accepts more), or rerun with --breaking if consumers were told.',
    );
    expect(existsSync(join(to.storeDir, 'leave/2.0.0'))).toBe(false);
    expect(registrations.map((registration) => registration.body['version'])).toEqual(['1.0.0']);

    const lines: string[] = [];
    await publish(true, (line) => lines.push(line));
    expect(lines).toContain(
      'types: published as breaking the active release 1.0.0:\n- ./Feature: Feature: prop title was removed',
    );
    expect(registrations[1]?.body).toMatchObject({ version: '2.0.0', breaking: true });
    // The release store keeps its types beside its files, for the next release and for consumers.
    expect(existsSync(join(to.storeDir, 'leave/2.0.0/atrium-types.json'))).toBe(true);
  });

  it('publishes a release that only adds an optional prop without --breaking, and does not mark it', async () => {
    const { registrations, to } = await activeRelease();
    const next = writeFixtureBuild(fixtures, '1.1.0', leaveFeature({ add: 'readonly compact?: boolean;' }));
    const lines: string[] = [];

    await publishRelease({
      remote: leave(),
      target: to,
      version: '1.1.0',
      sourceDir: next,
      log: (line) => lines.push(line),
    });

    expect(lines).toContain('types: compatible with the active release 1.0.0');
    expect(registrations[1]?.body).toMatchObject({ version: '1.1.0' });
    expect(registrations[1]?.body).not.toHaveProperty('breaking');
  });

  it('refuses a build without types when the active release has them', async () => {
    const { to } = await activeRelease();
    await expect(
      publishRelease({
        remote: leave(),
        target: to,
        version: '1.1.0',
        sourceDir: writeBuild(),
        log: () => undefined,
      }),
    ).rejects.toThrow(
      /- the build has no atrium-types.json: build it with @atrium\/sdk\/build's defineRemoteConfig/,
    );
  });
});
