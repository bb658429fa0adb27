// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from 'vitest';
import { testRemote } from '../testing/test-remote';
import { forgetRemotes, recallRoutedRemote, rememberRemotes } from './remembered-remotes';

const profile = testRemote('profile');
const admin = testRemote('admin');

afterEach(() => {
  localStorage.clear();
  vi.restoreAllMocks();
});

describe('remembered remotes', () => {
  it('recalls the remote a page opens at from the list the last page kept', () => {
    rememberRemotes([profile, admin]);

    expect(recallRoutedRemote('/admin/rollouts')).toEqual(admin);
    expect(recallRoutedRemote('/elsewhere')).toBeUndefined();
  });

  it('recalls nothing once forgotten (signed out)', () => {
    rememberRemotes([profile]);
    forgetRemotes();

    expect(recallRoutedRemote('/profile')).toBeUndefined();
  });

  it('ignores a kept list that does not read as one, or items that are not remotes', () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    localStorage.setItem('atrium:last-remotes', '{not json');
    expect(recallRoutedRemote('/profile')).toBeUndefined();

    localStorage.setItem(
      'atrium:last-remotes',
      JSON.stringify({ remotes: [{ ...profile, name: 'not a name!' }, admin] }),
    );
    expect(recallRoutedRemote('/profile')).toBeUndefined();
    expect(recallRoutedRemote('/admin')).toEqual(admin);
  });

  it('leaves no older list behind when the new one does not fit', () => {
    rememberRemotes([profile]);
    const full = {
      getItem: (key: string) => localStorage.getItem(key),
      removeItem: (key: string) => localStorage.removeItem(key),
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
    } as unknown as Storage;

    rememberRemotes([admin], full);

    expect(recallRoutedRemote('/profile')).toBeUndefined();
    expect(recallRoutedRemote('/admin')).toBeUndefined();
  });

  it('keeps working when storage refuses', () => {
    const refusing = {
      getItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
      setItem: () => {
        throw new DOMException('full', 'QuotaExceededError');
      },
      removeItem: () => {
        throw new DOMException('denied', 'SecurityError');
      },
    } as unknown as Storage;

    expect(() => rememberRemotes([profile], refusing)).not.toThrow();
    expect(recallRoutedRemote('/profile', refusing)).toBeUndefined();
    expect(() => forgetRemotes(refusing)).not.toThrow();
  });
});
