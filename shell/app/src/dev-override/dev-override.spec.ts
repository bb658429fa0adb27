// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { vi } from 'vitest';
import {
  activeDevOverrides,
  applyDevOverrides,
  devOverrideConfig,
  clearDevOverrides,
  devEntryUrl,
  devOverrideProblem,
  requestedDevOverride,
  storeDevOverride,
} from './dev-override';
import { testRemote } from '../remote-loading/testing/test-remote';

const config = { allowedOrigins: ['http://localhost:*', 'http://127.0.0.1:*'] };
const developer = ['atrium-user', 'atrium-developer'];
const profile = { remote: 'profile', url: 'http://localhost:5001/mf-manifest.json' };

afterEach(() => window.sessionStorage.clear());

describe('devOverrideProblem', () => {
  it("allows a developer a dev server's manifest or entry on an allowed origin", () => {
    expect(devOverrideProblem(profile, developer, config)).toBeUndefined();
    expect(
      devOverrideProblem(
        { remote: 'profile', url: 'http://127.0.0.1:5002/remoteEntry.js' },
        developer,
        config,
      ),
    ).toBeUndefined();
  });

  it('refuses someone without the developer role, even an administrator', () => {
    expect(devOverrideProblem(profile, ['atrium-user', 'atrium-admin'], config)).toBe(
      'it needs the role atrium-developer',
    );
  });

  it('refuses everything on a shell whose config does not turn overrides on (production default)', () => {
    expect(devOverrideProblem(profile, developer, null)).toBe('dev overrides are off on this shell');
  });

  it("refuses an attacker's dev server: another origin, a look-alike host, https for http, other files", () => {
    for (const url of [
      'https://evil.example/remoteEntry.js',
      'http://localhost.evil.example:5001/remoteEntry.js',
      'https://localhost:5001/remoteEntry.js',
      'http://127.0.0.2:5001/x/remoteEntry.js',
    ]) {
      expect(devOverrideProblem({ remote: 'profile', url }, developer, config)).toMatch(/not an origin/);
    }
    for (const url of [
      'http://localhost:5001/evil.js',
      'http://user@localhost:5001/remoteEntry.js',
      'http://localhost:5001/remoteEntry.js?next=1',
      'http://evil.example/?x=http://localhost:5001/remoteEntry.js',
      'javascript:alert(1)//remoteEntry.js',
    ]) {
      expect(devOverrideProblem({ remote: 'profile', url }, developer, config)).toBeDefined();
    }
  });
});

describe('the session store', () => {
  it('keeps overrides for this tab and applies only those that still pass', () => {
    storeDevOverride(profile);
    storeDevOverride({ remote: 'admin', url: 'https://evil.example/remoteEntry.js' });
    expect(activeDevOverrides(developer, config)).toEqual([profile]);
    expect(activeDevOverrides(['atrium-user'], config)).toEqual([]);
    clearDevOverrides();
    expect(activeDevOverrides(developer, config)).toEqual([]);
  });

  it('ignores a store someone filled with something else', () => {
    window.sessionStorage.setItem('atrium-dev-override', '{"remote":1');
    expect(activeDevOverrides(developer, config)).toEqual([]);
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
    expect(devOverrideConfig(config)).toEqual(config);
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
    vi.stubGlobal('fetch', (url: string) => Promise.resolve(new Response(files[url])));
    const sri = (text: string) => `sha384-${createHash('sha384').update(text).digest('base64')}`;
    const listed = (name: string) => testRemote(name, { store: 'http://localhost:4100' });
    storeDevOverride(profile);
    storeDevOverride({ remote: 'admin', url: 'https://evil.example/remoteEntry.js' });
    const [profileEntry, adminEntry] = await applyDevOverrides(developer, config, [
      listed('profile'),
      listed('admin'),
    ]);
    expect(profileEntry).toMatchObject({
      entry: 'http://localhost:5001/mf-manifest.json',
      manifestIntegrity: sri('{"manifest":1}'),
      integrity: sri('var profile = {};'),
    });
    expect(adminEntry).toEqual(listed('admin'));
    expect(await applyDevOverrides(['atrium-user'], config, [listed('profile')])).toEqual([
      listed('profile'),
    ]);
    expect(await applyDevOverrides(developer, undefined, [listed('profile')])).toEqual([listed('profile')]);
    vi.unstubAllGlobals();
  });
});
