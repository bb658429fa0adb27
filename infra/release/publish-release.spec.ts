import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { publishRelease, type ReleaseTarget } from './publish-release.ts';

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'atrium-publish-spec-'));
});
afterEach(() => {
  vi.unstubAllGlobals();
  rmSync(work, { recursive: true, force: true });
});

const sha384 = (bytes: Buffer) => `sha384-${createHash('sha384').update(bytes).digest('base64')}`;

/** Stands in for Keycloak and the API: answers discovery and the token, records what the CLI registers. */
function fakeServers(): { registrations: Array<{ url: string; body: Record<string, unknown> }> } {
  const registrations: Array<{ url: string; body: Record<string, unknown> }> = [];
  vi.stubGlobal('fetch', (url: string, init?: RequestInit): Promise<Response> => {
    if (url.endsWith('/.well-known/openid-configuration')) {
      return Promise.resolve(Response.json({ token_endpoint: 'http://issuer.test/token' }));
    }
    if (url === 'http://issuer.test/token') return Promise.resolve(Response.json({ access_token: 'token' }));
    const body = JSON.parse(init?.body as string) as Record<string, unknown>;
    registrations.push({ url, body });
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

describe('publishRelease', () => {
  it('registers the SRI hashes of the stored manifest, byte for byte, and of the remoteEntry.js it names', async () => {
    const dist = join(work, 'dist');
    mkdirSync(join(dist, 'js'), { recursive: true });
    // Odd spacing on purpose: the hash is of the exact bytes, not of the parsed JSON.
    writeFileSync(
      join(dist, 'mf-manifest.json'),
      '{ "metaData":  { "publicPath": "auto", "remoteEntry": { "path": "js", "name": "entry.js" } } }\n',
    );
    writeFileSync(join(dist, 'js/entry.js'), 'var leave = {};');
    writeFileSync(join(dist, 'remoteEntry.js'), 'not the entry');
    const target: ReleaseTarget = {
      storeDir: join(work, 'store'),
      storeUrl: 'http://store.test',
      apiUrl: 'http://api.test',
      issuer: 'http://issuer.test/realms/atrium',
      clientId: 'atrium-deployer',
      clientSecret: 'secret',
    };
    const { registrations } = fakeServers();

    await publishRelease({
      remote: {
        dir: work,
        version: '1.2.0',
        atrium: { remote: 'leave', title: 'Leave', route: '/leave', navOrder: 20, requiredRoles: [] },
      },
      target,
      sourceDir: dist,
      log: () => undefined,
    });

    const stored = join(target.storeDir, 'leave/1.2.0');
    expect(registrations).toHaveLength(1);
    expect(registrations[0]?.url).toBe('http://api.test/api/remotes/leave/versions');
    expect(registrations[0]?.body).toMatchObject({
      version: '1.2.0',
      manifestUrl: 'http://store.test/leave/1.2.0/mf-manifest.json',
      integrity: sha384(readFileSync(join(stored, 'js/entry.js'))),
      manifestIntegrity: sha384(readFileSync(join(stored, 'mf-manifest.json'))),
    });
    expect(registrations[0]?.body['manifestIntegrity']).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
  });
});
