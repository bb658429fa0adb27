import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { signIn } from '@atrium/test-support/browser';
import type { BoundToken } from '@atrium/test-support/dpop';
import { fetchDeployerToken, fetchPlatformToken } from '@atrium/test-support/keycloak';
import { adminQuery } from '@atrium/test-support/postgres';
import { sri } from '@atrium/test-support/releases';

const issuer = inject('oidcIssuerUrl');
const databaseUrl = inject('databaseUrl');

/** A package a fixture build shares; `copy` is the version of the copy it brings (none: `import: false`). */
interface Shares {
  name: string;
  requiredVersion: string;
  copy?: string;
}

/** A `shared` entry as Module Federation 2 writes it into mf-manifest.json. */
const sharedEntry = (build: string, { name, requiredVersion, copy }: Shares) => ({
  id: `${build}:${name}`,
  name,
  version: copy ?? requiredVersion,
  singleton: true,
  requiredVersion,
  assets: {
    js: { async: [], sync: copy ? [`${name.replace(/\W/g, '_')}.js`] : [] },
    css: { async: [], sync: [] },
  },
  fallback: '',
});

/** A built mf-manifest.json sharing `shares`, as its exact text. */
const manifestText = (build: string, version: string, shares: readonly Shares[]) =>
  `${JSON.stringify(
    {
      id: build,
      name: build,
      metaData: { name: build, buildInfo: { buildVersion: version }, publicPath: 'auto' },
      shared: shares.map((share) => sharedEntry(build, share)),
      remotes: [],
      exposes: [],
    },
    null,
    2,
  )}\n`;

/** What the shell provides: its own copies of the singletons, as its build declares them. */
const shellProviding = (react: string) =>
  manifestText('shell', '0.1.0', [
    { name: '@atrium/sdk', requiredVersion: '^0.1.0', copy: '0.1.0' },
    { name: 'react-dom', requiredVersion: `^${react}`, copy: react },
    { name: 'react', requiredVersion: `^${react}`, copy: react },
  ]);

/** A remote built as Atrium builds them: the shell's singletons with no copy of its own. */
const builtAgainst = (react: string): Shares[] => [
  { name: '@atrium/sdk', requiredVersion: '^0.1.0' },
  { name: 'react', requiredVersion: react },
];

/*
 * The shared-dependency gate on PostgreSQL with Keycloak's tokens: the shell's manifest is served by a server of
 * this test (so the test can deploy another shell), releases are published as the release CLI publishes them,
 * with the manifest's exact text. A release requiring react ^20 is refused at publish, activation and canary,
 * audited each time, and never listed to a person; compatible ones pass.
 */
describe('the shared-dependency gate on PostgreSQL', () => {
  const suffix = randomBytes(3).toString('hex');
  const remote = `itgate${suffix}`;
  const library = `itgatelib${suffix}`;
  // A singleton no other test shares, so releases of other tests on this database cannot meet it.
  const singleton = `@it/lib-${suffix}`;
  let shell = { status: 200, body: shellProviding('19.3.1') };
  let server: Server;
  let api: TestApp;
  let deployer: string;
  let platform: string;
  let alice: BoundToken;
  let ada: BoundToken;

  beforeAll(async () => {
    server = createServer((request, response) => {
      response.writeHead(request.url === '/mf-manifest.json' ? shell.status : 404, {
        'content-type': 'application/json',
      });
      response.end(shell.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    api = await createTestApp({
      OIDC_ISSUER_URL: issuer,
      DATABASE_URL: databaseUrl,
      SHELL_MANIFEST_URL: `http://127.0.0.1:${port}/mf-manifest.json`,
    });
    await api.waitForIssuer();
    [deployer, platform, alice, ada] = await Promise.all([
      fetchDeployerToken(issuer),
      fetchPlatformToken(issuer),
      signIn(issuer, 'alice', 'alice'),
      signIn(issuer, 'ada', 'ada'),
    ]);
    for (const name of [remote, library]) {
      const created = await api.request({
        method: 'POST',
        url: '/api/remotes',
        token: platform,
        body: { name, title: name, path: `/${name}`, owner: 'atrium-deployer' },
      });
      expect(created.statusCode).toBe(201);
    }
  });

  afterAll(async () => {
    await api?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    const names = [remote, library].map((name) => `'${name}'`).join(', ');
    await adminQuery(
      databaseUrl,
      `DELETE FROM audit_event WHERE target IN (${names}) OR split_part(target, '@', 1) IN (${names})`,
      `DELETE FROM remote WHERE name IN (${names})`,
    );
  });

  const publish = (name: string, version: string, shares: readonly Shares[], activate = false) => {
    const manifest = manifestText(name, version, shares);
    return api.request({
      method: 'POST',
      url: `/api/remotes/${name}/versions`,
      token: deployer,
      body: {
        version,
        manifestUrl: `http://localhost:4100/${name}/${version}/mf-manifest.json`,
        integrity: sri(`remoteEntry.js of ${name} ${version}`),
        manifestIntegrity: sri(manifest),
        manifest,
        activate,
      },
    });
  };
  const activate = (version: string) =>
    api.request({ method: 'PUT', url: `/api/remotes/${remote}/active`, token: deployer, body: { version } });
  const startCanary = (version: string) =>
    api.request({
      method: 'POST',
      url: `/api/remotes/${remote}/rollout`,
      token: deployer,
      body: { version, percent: 100 },
    });
  const servedToAlice = async () =>
    (await api.request({ url: '/api/remotes', token: alice }))
      .json<{ remotes: Array<{ name: string; version: string }> }>()
      .remotes.find((entry) => entry.name === remote)?.version;
  const refusals = async (version: string) =>
    (await api.request({ url: `/api/audit?target=${remote}@${version}&pageSize=100`, token: ada }))
      .json<{ items: Array<{ action: string; actor: string; details: Record<string, unknown> }> }>()
      .items.filter((item) => item.action === 'remote.version.refused');
  const reactTwenty = {
    package: 'react',
    required: '^20.0.0',
    requiredBy: `${remote} 2.0.0`,
    provided: '19.3.1',
    providedBy: 'the shell',
  };

  it('publishes and activates a release built against what the shell provides, keeping what it shares', async () => {
    const published = await publish(remote, '1.0.0', builtAgainst('^19.3.1'), true);
    expect(published.statusCode).toBe(201);
    expect(published.json()).toMatchObject({
      remote: { activeVersion: '1.0.0' },
      version: {
        shared: [
          { name: '@atrium/sdk', singleton: true, requiredVersion: '^0.1.0', providedVersion: null },
          { name: 'react', singleton: true, requiredVersion: '^19.3.1', providedVersion: null },
        ],
      },
    });
    expect(await servedToAlice()).toBe('1.0.0');
  });

  it('refuses to publish a release requiring react ^20, naming it, the range and what the shell provides', async () => {
    const refused = await publish(remote, '2.0.0', builtAgainst('^20.0.0'), true);
    expect(refused.statusCode).toBe(409);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({
      code: 'shared_dependency_conflict',
      detail: `Remote "${remote}" 2.0.0 cannot run beside what is live: it needs react ^20.0.0, and the shell provides 19.3.1.`,
      conflicts: [reactTwenty],
    });
    // Nothing registered, nothing served; the refusal is audited under the deployer's name.
    const history = await api.request({ url: `/api/remotes/${remote}/versions`, token: ada });
    expect(history.json<{ versions: Array<{ version: string }> }>().versions.map((v) => v.version)).toEqual([
      '1.0.0',
    ]);
    expect(await servedToAlice()).toBe('1.0.0');
    const [refusal, ...more] = await refusals('2.0.0');
    expect(more).toEqual([]);
    expect(refusal?.actor).toBe('atrium-deployer');
    expect(refusal?.details).toMatchObject({ act: 'publish', conflicts: [reactTwenty] });
  });

  it('refuses to activate it or start its canary once the shell no longer provides react 20, and serves neither', async () => {
    // A shell that provides react 20 is deployed: the release is published (a compatible one passes)...
    shell = { status: 200, body: shellProviding('20.1.0') };
    expect((await publish(remote, '2.0.0', builtAgainst('^20.0.0'))).statusCode).toBe(201);
    // ...and the shell is rolled back before the release is made live.
    shell = { status: 200, body: shellProviding('19.3.1') };

    for (const refused of [await activate('2.0.0'), await startCanary('2.0.0')]) {
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ code: 'shared_dependency_conflict', conflicts: [reactTwenty] });
    }
    expect(await servedToAlice()).toBe('1.0.0');
    const rollout = await api.request({ url: `/api/remotes/${remote}/rollout`, token: deployer });
    expect(rollout.json()).toEqual({ rollout: null });
    expect((await refusals('2.0.0')).map(({ details }) => details['act'])).toEqual([
      'canary',
      'activate',
      'publish',
    ]);

    // A release built against the shell's react starts as a canary.
    expect((await publish(remote, '1.1.0', builtAgainst('^19.0.0'))).statusCode).toBe(201);
    expect((await startCanary('1.1.0')).statusCode).toBe(201);
    expect(await servedToAlice()).toBe('1.1.0');
  });

  it("refuses a singleton copy that another remote's live release does not accept, both ways", async () => {
    const published = await publish(
      library,
      '1.0.0',
      [{ name: singleton, requiredVersion: '^1.0.0', copy: '1.2.0' }],
      true,
    );
    expect(published.statusCode).toBe(201);
    const refused = await publish(remote, '3.0.0', [
      ...builtAgainst('^19.3.1'),
      { name: singleton, requiredVersion: '^2.0.0', copy: '2.0.0' },
    ]);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'shared_dependency_conflict',
      conflicts: [
        {
          package: singleton,
          required: '^2.0.0',
          requiredBy: `${remote} 3.0.0`,
          provided: '1.2.0',
          providedBy: `${library} 1.0.0`,
        },
        {
          package: singleton,
          required: '^1.0.0',
          requiredBy: `${library} 1.0.0`,
          provided: '2.0.0',
          providedBy: `${remote} 3.0.0`,
        },
      ],
    });
  });

  it('refuses a manifest that is not the stored file, and anything while the shell cannot be read', async () => {
    const manifest = manifestText(remote, '4.0.0', builtAgainst('^19.3.1'));
    const forged = await api.request({
      method: 'POST',
      url: `/api/remotes/${remote}/versions`,
      token: deployer,
      body: {
        version: '4.0.0',
        manifestUrl: `http://localhost:4100/${remote}/4.0.0/mf-manifest.json`,
        integrity: sri('remoteEntry.js'),
        // The hash of another file than the one sent: the shell would check a manifest nobody checked here.
        manifestIntegrity: sri(manifestText(remote, '4.0.0', [])),
        manifest,
      },
    });
    expect(forged.statusCode).toBe(400);
    expect(forged.json()).toMatchObject({ code: 'validation_failed', errors: [{ field: 'manifest' }] });

    shell = { status: 404, body: '{}' };
    const unread = await publish(remote, '4.0.0', builtAgainst('^19.3.1'));
    expect(unread.statusCode).toBe(503);
    expect(unread.headers['retry-after']).toBe('30');
    expect(unread.json()).toMatchObject({
      code: 'shell_manifest_unavailable',
      detail: expect.stringContaining('(HTTP 404)') as unknown,
    });
    const history = await api.request({ url: `/api/remotes/${remote}/versions`, token: ada });
    expect(
      history.json<{ versions: Array<{ version: string }> }>().versions.map((v) => v.version),
    ).not.toContain('4.0.0');
  });
});
