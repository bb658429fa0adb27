import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { releaseHashes } from '@atrium/test-support/releases';

describe('/api/remotes from memory, with ETag (SQLite: one replica)', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  let platform: string;
  let alice: string;
  let ada: string;

  const userToken = (sub: string, roles: string[]) =>
    issuer.mint({ claims: { sub, preferred_username: sub, azp: 'atrium-shell', realm_access: { roles } } });

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
    platform = await issuer.mint({
      claims: {
        sub: 'sa',
        azp: 'atrium-platform',
        realm_access: { roles: ['remote-publisher', 'atrium-admin'] },
      },
    });
    alice = await userToken('alice', ['atrium-user']);
    ada = await userToken('ada', ['atrium-user', 'atrium-admin']);
    for (const [name, requiredRoles] of [
      ['cached', ['atrium-user']],
      ['secret', ['atrium-admin']],
    ] as const) {
      const created = await api.request({
        method: 'POST',
        url: '/api/remotes',
        token: platform,
        body: { name, title: name, path: `/${name}`, requiredRoles, owner: 'atrium-platform' },
      });
      expect(created.statusCode).toBe(201);
      await publish(name, '1.0.0');
    }
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  async function publish(name: string, version: string) {
    const response = await api.request({
      method: 'POST',
      url: `/api/remotes/${name}/versions`,
      token: platform,
      body: {
        version,
        manifestUrl: `http://localhost:4100/${name}/${version}/mf-manifest.json`,
        ...releaseHashes(name, version),
        activate: true,
      },
    });
    expect(response.statusCode).toBe(201);
  }

  const list = (token: string, etag?: string) =>
    api.request({ url: '/api/remotes', token, headers: etag ? { 'if-none-match': etag } : {} });
  const versions = (response: Awaited<ReturnType<typeof list>>) =>
    response
      .json<{ remotes: Array<{ name: string; version: string }> }>()
      .remotes.map((r) => `${r.name}@${r.version}`);

  it('answers a matching If-None-Match with 304 and no body, revalidated before each use', async () => {
    const first = await list(alice);
    const etag = String(first.headers['etag']);
    expect(first.statusCode).toBe(200);
    expect(etag).toMatch(/^"[\w-]{43}"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(versions(first)).toEqual(['cached@1.0.0']);

    const again = await list(alice, etag);
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await list(alice, `W/${etag}, "other"`)).statusCode).toBe(304);
    expect((await list(alice, '"stale"')).statusCode).toBe(200);
  });

  it('gives people with other roles another validator: one never gets a 304 for what another sees', async () => {
    const forAlice = String((await list(alice)).headers['etag']);
    const forAda = await list(ada, forAlice);
    expect(forAda.statusCode).toBe(200);
    expect(versions(forAda)).toEqual(['cached@1.0.0', 'secret@1.0.0']);
    expect(forAda.headers['etag']).not.toBe(forAlice);
  });

  it('serves a new activation at once, with a new ETag, and the same ETag for the same content', async () => {
    const before = await list(alice);
    await publish('cached', '1.1.0');

    const after = await list(alice, String(before.headers['etag']));
    expect(after.statusCode).toBe(200);
    expect(versions(after)).toEqual(['cached@1.1.0']);
    // Activating the first version again restores the same content, so the same validator.
    const back = await api.request({
      method: 'PUT',
      url: '/api/remotes/cached/active',
      token: platform,
      body: { version: '1.0.0' },
    });
    expect(back.statusCode).toBe(200);
    const restored = await list(alice);
    expect(versions(restored)).toEqual(['cached@1.0.0']);
    expect(restored.headers['etag']).toBe(before.headers['etag']);
  });
});
