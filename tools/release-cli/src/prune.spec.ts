import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  decidePrune,
  pruneReleases,
  retentionHoursFromEnv,
  storedReleases,
  type RegistryView,
  type StoredRelease,
} from './prune.ts';

const HOUR = 3_600_000;
const now = new Date('2026-11-28T12:00:00.000Z');
const hoursAgo = (hours: number) => new Date(now.getTime() - hours * HOUR);
const release = (version: string, writtenHoursAgo = 1_000): StoredRelease => ({
  remote: 'profile',
  version,
  dir: `/store/profile/${version}`,
  writtenAt: hoursAgo(writtenHoursAgo),
});

describe('decidePrune', () => {
  const registry = new Map<string, RegistryView>([
    [
      'profile',
      {
        active: '3.0.0',
        canary: '3.1.0',
        versions: new Map([
          ['1.0.0', { publishedAt: hoursAgo(900), withdrawnAt: null }],
          ['1.1.0', { publishedAt: hoursAgo(800), withdrawnAt: hoursAgo(10) }],
          ['1.2.0', { publishedAt: hoursAgo(700), withdrawnAt: hoursAgo(500) }],
          ['2.0.0', { publishedAt: hoursAgo(5), withdrawnAt: null }],
          ['3.0.0', { publishedAt: hoursAgo(600), withdrawnAt: null }],
          ['3.1.0', { publishedAt: hoursAgo(400), withdrawnAt: null }],
        ]),
      },
    ],
  ]);

  it('keeps the active release, a running canary and whatever is younger than the retention time', () => {
    const stored = ['1.0.0', '1.1.0', '1.2.0', '2.0.0', '3.0.0', '3.1.0'].map((version) => release(version));
    stored.push(release('9.9.9', 2), release('9.9.8', 500));

    const decisions = decidePrune(stored, registry, now, 168 * HOUR);

    expect(
      Object.fromEntries(decisions.map(({ release, remove, why }) => [release.version, [remove, why]])),
    ).toEqual({
      '1.0.0': [true, 'inactive'],
      '1.1.0': [false, 'withdrawn within the retention time (open pages may still show why)'],
      '1.2.0': [true, 'withdrawn, longer ago than the retention time'],
      '2.0.0': [false, 'published within the retention time'],
      '3.0.0': [false, 'active'],
      '3.1.0': [false, 'running canary'],
      '9.9.9': [false, 'written within the retention time'],
      '9.9.8': [true, 'never registered, older than the retention time'],
    });
  });

  it('never removes the active release or a running canary, even with no retention at all', () => {
    const decisions = decidePrune([release('3.0.0'), release('3.1.0')], registry, now, 0);
    expect(decisions.map((decision) => decision.remove)).toEqual([false, false]);
  });
});

describe('pruneReleases', () => {
  let store: string;
  beforeEach(() => {
    store = mkdtempSync(join(tmpdir(), 'atrium-prune-spec-'));
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    rmSync(store, { recursive: true, force: true });
  });

  /** A release folder written `hours` ago. */
  function write(remote: string, version: string, hours: number): string {
    const dir = join(store, remote, version);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'mf-manifest.json'), '{}');
    const then = hoursAgo(hours);
    utimesSync(dir, then, then);
    return dir;
  }

  /** Stands in for Keycloak and the API: the registry's versions of `profile`, active 2.0.0, canary 2.1.0. */
  function servers() {
    const asked: string[] = [];
    vi.stubGlobal('fetch', (url: string, init?: RequestInit): Promise<Response> => {
      asked.push(`${init?.method ?? 'GET'} ${url}`);
      if (url.endsWith('/.well-known/openid-configuration')) {
        return Promise.resolve(Response.json({ token_endpoint: 'http://issuer.test/token' }));
      }
      if (url === 'http://issuer.test/token')
        return Promise.resolve(Response.json({ access_token: 'token' }));
      if (url.endsWith('/api/admin/remotes')) {
        const version = (v: string, hours: number) => ({
          version: v,
          publishedAt: hoursAgo(hours).toISOString(),
          withdrawal: null,
        });
        return Promise.resolve(
          Response.json({
            remotes: [
              {
                name: 'profile',
                activeVersion: '2.0.0',
                versions: [version('1.0.0', 900), version('2.0.0', 800), version('2.1.0', 700)],
              },
            ],
          }),
        );
      }
      if (url.endsWith('/api/remotes/profile/rollout')) {
        return Promise.resolve(Response.json({ rollout: { state: 'running', version: '2.1.0' } }));
      }
      return Promise.resolve(new Response(null, { status: 404 }));
    });
    return asked;
  }

  const options = (dryRun: boolean) => ({
    storeDir: store,
    apiUrl: 'http://api.test',
    issuer: 'http://issuer.test/realms/atrium',
    clientId: 'atrium-platform',
    clientSecret: 'secret',
    retentionHours: 168,
    dryRun,
    now,
  });

  it('removes only what no open page can need, and nothing on a dry run', async () => {
    const asked = servers();
    const old = write('profile', '1.0.0', 900);
    const active = write('profile', '2.0.0', 800);
    const canary = write('profile', '2.1.0', 700);
    mkdirSync(join(store, 'profile', '3.0.0.uploading-123'), { recursive: true });

    const dry = await pruneReleases(options(true));
    expect(dry.filter((decision) => decision.remove).map((decision) => decision.release.version)).toEqual([
      '1.0.0',
    ]);
    expect(existsSync(old)).toBe(true);

    await pruneReleases(options(false));
    expect([existsSync(old), existsSync(active), existsSync(canary)]).toEqual([false, true, true]);
    expect(asked).toContain('GET http://api.test/api/admin/remotes');
  });
});

describe('storedReleases', () => {
  it('says where to point the CLI when the store cannot be read', () => {
    expect(() => storedReleases('/no/such/store')).toThrow(/ATRIUM_RELEASE_STORE_DIR/);
  });
});

describe('retentionHoursFromEnv', () => {
  it('defaults to a week and refuses anything but whole hours', () => {
    expect(retentionHoursFromEnv({})).toBe(168);
    expect(retentionHoursFromEnv({ ATRIUM_RELEASE_RETENTION_HOURS: '24' })).toBe(24);
    expect(() => retentionHoursFromEnv({ ATRIUM_RELEASE_RETENTION_HOURS: '1.5' })).toThrow(/whole number/);
    expect(() => retentionHoursFromEnv({ ATRIUM_RELEASE_RETENTION_HOURS: '-1' })).toThrow(/whole number/);
  });
});
