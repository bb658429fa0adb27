import { REMOTE_NAME_RULE } from '@atrium/sdk';
import { ADMIN_ROLE } from '@atrium/sdk/role-names';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testRemote } from '../testing/test-remote';
import { parseRemotes, routedRemote } from './remotes-list';

const item = {
  name: 'profile',
  title: 'Profile',
  path: '/profile',
  navOrder: 10,
  version: '1.0.0',
  entry: 'http://releases.test/profile/1.0.0/mf-manifest.json',
  integrity: `sha384-${'e'.repeat(64)}`,
  manifestIntegrity: `sha384-${'m'.repeat(64)}`,
  requiredRoles: ['atrium-user'],
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('parseRemotes', () => {
  it("keeps the registry's hashes of each release", () => {
    expect(parseRemotes({ remotes: [item] }, 'test')).toEqual([item]);
  });

  it('keeps a release listed without hashes, with empty ones its slot refuses, so the person is told why', () => {
    const { integrity: _integrity, manifestIntegrity: _manifestIntegrity, ...unhashed } = item;

    expect(parseRemotes({ remotes: [{ ...unhashed, integrity: null }] }, 'test')).toEqual([
      { ...item, integrity: '', manifestIntegrity: '' },
    ]);
  });

  it('counts an item without a list of required roles as one only administrators may see', () => {
    for (const requiredRoles of [undefined, 'atrium-user', [1]]) {
      expect(parseRemotes({ remotes: [{ ...item, requiredRoles }] }, 'test')).toEqual([
        { ...item, requiredRoles: [ADMIN_ROLE] },
      ]);
    }
  });

  it('leaves out an item that names no valid manifest URL', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);

    expect(parseRemotes({ remotes: [{ ...item, entry: 'not a url' }] }, 'test')).toEqual([]);
    expect(console.warn).toHaveBeenCalledWith('Ignoring item 0 of test: invalid entry');
  });

  it.each(['time-off', 'Profile', 'p'])(
    'leaves out an item named %j, which breaks the one remote-name rule, saying the rule',
    (name) => {
      vi.spyOn(console, 'warn').mockImplementation(() => undefined);

      expect(parseRemotes({ remotes: [{ ...item, name }] }, 'test')).toEqual([]);
      expect(console.warn).toHaveBeenCalledWith(
        `Ignoring item 0 of test: invalid name (${REMOTE_NAME_RULE})`,
      );
    },
  );
});

describe('routedRemote', () => {
  const profile = testRemote('profile');
  const admin = testRemote('admin');

  it('finds the remote whose route a path is in, and not a remote whose path merely starts the same', () => {
    expect(routedRemote([profile, admin], '/profile')).toBe(profile);
    expect(routedRemote([profile, admin], '/profile/security')).toBe(profile);
    expect(routedRemote([profile, admin], '/profiles')).toBeUndefined();
    expect(routedRemote([profile, admin], '/')).toBeUndefined();
  });
});
