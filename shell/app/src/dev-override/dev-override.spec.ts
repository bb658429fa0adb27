// @vitest-environment happy-dom
// @vitest-environment-options { "url": "http://localhost:4000/profile" }
import { ApiProblemError } from '@atrium/sdk';
import { ADMIN_ROLE } from '@atrium/sdk/role-names';
import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testRemote } from '../remote-loading/testing/test-remote';
import {
  applyDevOverrides,
  clearDevOverrides,
  decideDevOverrides,
  devEntryUrl,
  devOverrideConfig,
  type DevOverrideContext,
  devOverrideProblem,
  forgetDevOverride,
  platformOrigins,
  requestedDevOverride,
  storeDevOverride,
  storedDevOverrides,
} from './dev-override';

const STORE = 'http://localhost:4100';
const listed = (name: string, requiredRoles: string[] = []) => ({
  ...testRemote(name, { store: STORE }),
  requiredRoles,
});
const remotes = [listed('profile'), listed('admin', ['atrium-user', ADMIN_ROLE])];
const runtime = {
  apiBaseUrl: 'http://localhost:3000',
  oidc: { authority: 'http://localhost:8080/realms/atrium' },
};
const developer: DevOverrideContext = {
  roles: ['atrium-user', 'atrium-developer', ADMIN_ROLE],
  config: { allowedOrigins: ['http://localhost:*', 'http://127.0.0.1:*'] },
  platform: platformOrigins(runtime, remotes),
  remotes,
};
const profile = { remote: 'profile', url: 'http://localhost:5001/mf-manifest.json' };

/** An API client whose `GET /api/dev-overrides` answers `approved` (or fails with `error`). */
function apiApproving(approved: readonly { remote: string; url: string }[], error?: Error) {
  return {
    request: vi.fn((method: string, path: string) => {
      expect([method, path]).toEqual(['GET', '/api/dev-overrides']);
      if (error) return Promise.reject(error);
      return Promise.resolve({
        overrides: approved.map((item) => ({ ...item, actor: 'ada', recordedAt: '2026-01-01T00:00:00Z' })),
      });
    }) as never,
  };
}

afterEach(() => {
  window.sessionStorage.clear();
  vi.unstubAllGlobals();
});

describe('devOverrideProblem', () => {
  it("allows a developer a dev server's manifest or entry on an allowed origin", () => {
    expect(devOverrideProblem(profile, developer)).toBeUndefined();
    expect(
      devOverrideProblem({ remote: 'profile', url: 'http://127.0.0.1:5002/remoteEntry.js' }, developer),
    ).toBeUndefined();
  });

  it('refuses someone without the developer role, even an administrator', () => {
    expect(devOverrideProblem(profile, { ...developer, roles: ['atrium-user', ADMIN_ROLE] })).toBe(
      'it needs the role atrium-developer',
    );
  });

  it('refuses everything on a shell whose config does not turn overrides on (production default)', () => {
    expect(devOverrideProblem(profile, { ...developer, config: null })).toBe(
      'dev overrides are off on this shell',
    );
  });

  it("refuses an attacker's dev server: another origin, a look-alike host, https for http, other files", () => {
    for (const url of [
      'https://evil.example/remoteEntry.js',
      'http://localhost.evil.example:5001/remoteEntry.js',
      'https://localhost:5001/remoteEntry.js',
      'http://127.0.0.2:5001/x/remoteEntry.js',
    ]) {
      expect(devOverrideProblem({ remote: 'profile', url }, developer)).toMatch(/not an origin/);
    }
    for (const url of [
      'http://localhost:5001/evil.js',
      'http://user@localhost:5001/remoteEntry.js',
      'http://localhost:5001/remoteEntry.js?next=1',
      'http://evil.example/?x=http://localhost:5001/remoteEntry.js',
      'javascript:alert(1)//remoteEntry.js',
    ]) {
      expect(devOverrideProblem({ remote: 'profile', url }, developer)).toBeDefined();
    }
  });

  it("refuses the platform's own origins, though the allowed origins match them", () => {
    for (const [url, what] of [
      [`${STORE}/profile/0.9.0/mf-manifest.json`, 'the release store'],
      ['http://localhost:3000/mf-manifest.json', 'the API'],
      ['http://localhost:8080/realms/atrium/remoteEntry.js', 'the identity provider'],
      [`${window.location.origin}/remoteEntry.js`, 'the shell'],
    ] as const) {
      expect(devOverrideProblem({ remote: 'profile', url }, developer)).toBe(
        `${new URL(url).origin} is ${what}'s origin, which no dev override loads from`,
      );
    }
  });

  it('refuses to replace a remote only administrators may see, or one the registry does not list', () => {
    expect(
      devOverrideProblem({ remote: 'admin', url: 'http://localhost:5002/mf-manifest.json' }, developer),
    ).toBe('admin is a remote only administrators may see, which no dev override replaces');
    expect(
      devOverrideProblem({ remote: 'hidden', url: 'http://localhost:5003/mf-manifest.json' }, developer),
    ).toBe('hidden is not a feature the registry lists for you');
  });
});

describe('decideDevOverrides', () => {
  it('runs only the stored overrides the API approves for this session, exactly as approved', async () => {
    storeDevOverride(profile);
    expect(await decideDevOverrides(developer, apiApproving([profile]))).toEqual({
      active: [profile],
      ignored: [],
    });
    // Planted with another URL than the one approved, or not approved at all: ignored, saying why.
    storeDevOverride({ remote: 'profile', url: 'http://localhost:5009/mf-manifest.json' });
    expect(await decideDevOverrides(developer, apiApproving([profile]))).toEqual({
      active: [],
      ignored: [
        {
          override: { remote: 'profile', url: 'http://localhost:5009/mf-manifest.json' },
          reason: 'the API has not approved it for this sign-in session',
        },
      ],
    });
  });

  it('asks the API nothing for overrides this page refuses, and runs none when the API cannot be asked', async () => {
    storeDevOverride({ remote: 'admin', url: 'http://localhost:5002/mf-manifest.json' });
    const api = apiApproving([]);
    const refused = await decideDevOverrides(developer, api);
    expect(refused.active).toEqual([]);
    expect(refused.ignored[0]?.reason).toMatch(/only administrators/);
    expect(api.request).not.toHaveBeenCalled();

    clearDevOverrides();
    storeDevOverride(profile);
    const unreachable = await decideDevOverrides(
      developer,
      apiApproving(
        [profile],
        new ApiProblemError({ status: 503, code: 'http_503', title: 'x', type: 'about:blank' }),
      ),
    );
    expect(unreachable).toEqual({
      active: [],
      ignored: [{ override: profile, reason: 'the API could not be asked whether this session approved it' }],
    });
  });

  it('ignores a store someone filled with something else', async () => {
    window.sessionStorage.setItem('atrium-dev-override', '{"remote":1');
    expect(await decideDevOverrides(developer, apiApproving([profile]))).toEqual({ active: [], ignored: [] });
  });

  it('forgets one stored override, and clears them all', () => {
    const other = { remote: 'other', url: 'http://localhost:5005/mf-manifest.json' };
    storeDevOverride(profile);
    storeDevOverride(other);
    forgetDevOverride(profile);
    expect(storedDevOverrides()).toEqual([other]);
    clearDevOverrides();
    expect(storedDevOverrides()).toEqual([]);
  });
});

describe('requestedDevOverride and devEntryUrl', () => {
  it('reads remote@url from the address and finds remoteEntry.js beside a manifest', () => {
    const requested = requestedDevOverride(
      `?atrium-dev-override=${encodeURIComponent('profile@http://localhost:5001/mf-manifest.json')}`,
    );
    expect(requested).toEqual(profile);
    expect(devEntryUrl(profile)).toBe('http://localhost:5001/remoteEntry.js');
    expect(requestedDevOverride('?atrium-dev-override=nonsense')).toBeNull();
    expect(requestedDevOverride('')).toBeNull();
  });
});

describe('devOverrideConfig and applyDevOverrides', () => {
  it('turns overrides on only for a list of valid origin patterns', () => {
    expect(devOverrideConfig(developer.config)).toEqual(developer.config);
    for (const raw of [
      undefined,
      null,
      {},
      { allowedOrigins: [] },
      { allowedOrigins: ['http://*.example'] },
    ]) {
      expect(devOverrideConfig(raw)).toBeNull();
    }
  });

  it('points the overridden remote at its dev server, with the hashes of the files it serves now', async () => {
    const files: Record<string, string> = {
      'http://localhost:5001/mf-manifest.json': '{"manifest":1}',
      'http://localhost:5001/remoteEntry.js': 'var profile = {};',
    };
    const fetched: string[] = [];
    vi.stubGlobal('fetch', (url: string) => {
      fetched.push(url);
      return Promise.resolve(new Response(files[url]));
    });
    const sri = (text: string) => `sha384-${createHash('sha384').update(text).digest('base64')}`;
    const [profileEntry, adminEntry] = await applyDevOverrides([profile], remotes);
    expect(profileEntry).toMatchObject({
      entry: 'http://localhost:5001/mf-manifest.json',
      manifestIntegrity: sri('{"manifest":1}'),
      integrity: sri('var profile = {};'),
    });
    expect(adminEntry).toEqual(remotes[1]);
    fetched.length = 0;
    expect(await applyDevOverrides([], remotes)).toEqual(remotes);
    expect(fetched).toEqual([]);
  });
});
