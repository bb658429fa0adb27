// @vitest-environment happy-dom
// @vitest-environment-options { "url": "http://localhost:4000/profile" }
import { beforeEach, describe, expect, it } from 'vitest';
import { createTrustedScriptUrls, REMOTE_LOADER_POLICY, type TrustedScriptUrls } from './trusted-script-urls';

type Rules = { createScriptURL(input: string): string | null };

const STORE = 'http://localhost:4100';
const entry = `${STORE}/profile/1.0.0/remoteEntry.js`;
const chunk = `${STORE}/profile/1.0.0/__federation_expose_Feature.5d08c56c.js`;
const listed = [{ name: 'profile', entry: `${STORE}/profile/1.0.0/mf-manifest.json` }];

/** A browser's `trustedTypes`, as far as the policies go: it keeps the rules each policy was created with. */
function fakeTrustedTypes() {
  const policies = new Map<string, Rules>();
  return {
    policies,
    createPolicy(name: string, rules: Rules) {
      if (policies.has(name)) throw new TypeError(`policy ${name} exists`);
      policies.set(name, rules);
      return { createScriptURL: (input: string) => ({ trusted: rules.createScriptURL(input) }) };
    },
  };
}

let trusted: TrustedScriptUrls;
beforeEach(() => {
  trusted = createTrustedScriptUrls();
});

describe('the trusted script URLs', () => {
  it("are the shell's own chunks, and nothing of the release store, the API or Keycloak by default", () => {
    expect(trusted.isTrusted('http://localhost:4000/bootstrap.3a1b2c3d.js')).toBe(true);
    expect(trusted.isTrusted('/main.1234abcd.hot-update.js')).toBe(true);
    for (const url of [
      entry,
      'http://localhost:3000/api/remotes.js',
      'http://localhost:8080/realms/atrium/x.js',
      'http://localhost:1080/app.js',
      'http://localhost:4000/nested/chunk.js',
      'http://localhost:4000/main.js?x=1',
      'http://localhost:4000/atrium.config.json',
      'data:text/javascript,alert(1)',
      'javascript:alert(1)',
    ]) {
      expect(trusted.isTrusted(url), url).toBe(false);
    }
  });

  it("are a listed release's entry, then its verified files, for as long as the list names the remote", () => {
    trusted.trustListedEntries(listed, 'remoteEntry.js');
    expect(trusted.isTrusted(entry)).toBe(true);
    expect(trusted.isTrusted(chunk)).toBe(false);
    trusted.trustRelease('profile', entry, [chunk, `${STORE}/profile/1.0.0/__federation_expose_Feature.css`]);
    expect(trusted.isTrusted(chunk)).toBe(true);
    // Another file of the same folder, or of another release of the store, is not one of them.
    expect(trusted.isTrusted(`${STORE}/profile/1.0.0/planted.js`)).toBe(false);
    expect(trusted.isTrusted(`${STORE}/profile/0.9.0/remoteEntry.js`)).toBe(false);
    // A new list naming another release of the remote: only its entry, until that release is verified.
    trusted.trustListedEntries(
      [{ name: 'profile', entry: `${STORE}/profile/1.1.0/mf-manifest.json` }],
      'remoteEntry.js',
    );
    expect(trusted.isTrusted(chunk)).toBe(false);
    expect(trusted.isTrusted(`${STORE}/profile/1.1.0/remoteEntry.js`)).toBe(true);
    trusted.trustListedEntries([], 'remoteEntry.js');
    expect(trusted.isTrusted(`${STORE}/profile/1.1.0/remoteEntry.js`)).toBe(false);
  });

  it("are an approved dev server's files, while the list points its remote there", () => {
    const folder = 'http://localhost:5001/';
    trusted.trustDevServer('profile', folder);
    trusted.trustListedEntries([{ name: 'profile', entry: `${folder}mf-manifest.json` }], 'remoteEntry.js');
    expect(trusted.isTrusted(`${folder}profile.0a1b2c3d4e5f.hot-update.js`)).toBe(true);
    expect(trusted.isTrusted('http://localhost:5002/remoteEntry.js')).toBe(false);
    expect(trusted.isTrusted('http://localhost:50011/remoteEntry.js')).toBe(false);
    trusted.trustListedEntries(listed, 'remoteEntry.js');
    expect(trusted.isTrusted(`${folder}profile.0a1b2c3d4e5f.hot-update.js`)).toBe(false);
  });
});

describe('TrustedScriptUrls.install', () => {
  it('creates the loader policy, which throws for an untrusted file, and a default policy that refuses it', () => {
    const factory = fakeTrustedTypes();
    trusted.install(factory);
    trusted.install(factory);
    expect([...factory.policies.keys()]).toEqual([REMOTE_LOADER_POLICY, 'default']);
    expect(() => trusted.loaderScriptUrl(entry)).toThrow(/not a file the registry pinned/);
    expect(factory.policies.get('default')?.createScriptURL(entry)).toBeNull();

    trusted.trustListedEntries(listed, 'remoteEntry.js');
    expect(trusted.loaderScriptUrl(entry)).toEqual({ trusted: entry });
    expect(factory.policies.get('default')?.createScriptURL(entry)).toBe(entry);
  });

  it('leaves plain URLs, by the same rule, where the browser has no Trusted Types', () => {
    trusted.install(undefined);
    expect(() => trusted.loaderScriptUrl(entry)).toThrow(TypeError);
    trusted.trustListedEntries(listed, 'remoteEntry.js');
    expect(trusted.loaderScriptUrl(entry)).toBe(entry);
  });
});
