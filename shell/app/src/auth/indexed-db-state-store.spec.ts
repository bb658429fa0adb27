// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import { IndexedDbStateStore } from './indexed-db-state-store';
import { clearOriginStorage } from './testing/fake-keycloak';

afterEach(() => clearOriginStorage());

// Each store opens its own connection, as each tab of the origin does.
const tab = () => new IndexedDbStateStore();

describe('IndexedDbStateStore', () => {
  it('lets another tab read a value as soon as the write resolved', async () => {
    const [a, b] = [tab(), tab()];
    expect(await b.get('user:x')).toBeNull();

    await a.set('user:x', '{"refresh_token":"rt-1"}');
    expect(await b.get('user:x')).toBe('{"refresh_token":"rt-1"}');

    await b.set('user:x', '{"refresh_token":"rt-2"}');
    expect(await a.get('user:x')).toBe('{"refresh_token":"rt-2"}');
  });

  it('keeps values for a page loaded later (a reload or a new tab)', async () => {
    await tab().set('user:x', 'signed in');

    expect(await tab().get('user:x')).toBe('signed in');
    expect(await tab().getAllKeys()).toEqual(['user:x']);
  });

  it('removes a value and returns it, and returns null when there was none', async () => {
    const [a, b] = [tab(), tab()];
    await a.set('user:x', 'signed in');
    await a.set('user:y', 'other client');

    expect(await b.remove('user:x')).toBe('signed in');
    expect(await a.get('user:x')).toBeNull();
    expect(await a.remove('user:x')).toBeNull();
    expect(await a.getAllKeys()).toEqual(['user:y']);
  });

  it('keeps apart stores with different names', async () => {
    await new IndexedDbStateStore('atrium-session', 'state').set('key', 'one');

    expect(await new IndexedDbStateStore('other-database', 'state').get('key')).toBeNull();
  });
});
