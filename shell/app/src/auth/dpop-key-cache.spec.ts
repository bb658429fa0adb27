import { calculateJwkThumbprint } from 'jose';
import { DPoPState } from 'oidc-client-ts';
import { describe, expect, it } from 'vitest';
import { DPoPKeyCache } from './dpop-key-cache';
import { MemoryDPoPStore } from './testing/fake-keycloak';

/** The origin's store (IndexedDB in the browser), counting its reads. */
class CountingStore extends MemoryDPoPStore {
  reads = 0;
  failNextRead = false;
  override get(key: string) {
    this.reads += 1;
    if (this.failNextRead) {
      this.failNextRead = false;
      return Promise.reject(new Error('IndexedDB is closing'));
    }
    return super.get(key);
  }
}

const keyPair = () =>
  crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);

/** A store holding one key pair for the shell's client, and a cache over it that has read nothing yet. */
async function cacheOverStoredKey() {
  const store = new CountingStore();
  const first = new DPoPState(await keyPair());
  await store.set('shell', first);
  return { store, first, cache: new DPoPKeyCache(store) };
}

describe('DPoPKeyCache', () => {
  it('reads the store once for all the proofs of a page', async () => {
    const { store, first: state, cache } = await cacheOverStoredKey();

    const read = await Promise.all([cache.get('shell'), cache.get('shell'), cache.get('shell')]);

    expect(read.every((each) => each === state)).toBe(true);
    expect(store.reads).toBe(1);
  });

  it('starts the read ahead with warm(), so the first proof finds the key in memory', async () => {
    const store = new CountingStore();
    await store.set('shell', new DPoPState(await keyPair()));
    const cache = new DPoPKeyCache(store);

    cache.warm();
    await new Promise((resolve) => setTimeout(resolve, 0));
    await cache.get('shell');

    expect(store.reads).toBe(1);
  });

  it('does not keep a missing key or a failed read', async () => {
    const store = new CountingStore();
    const cache = new DPoPKeyCache(store);
    expect(await cache.get('shell')).toBeUndefined();

    const state = new DPoPState(await keyPair());
    await store.set('shell', state); // another tab signed in
    store.failNextRead = true;
    await expect(cache.get('shell')).rejects.toThrow('IndexedDB is closing');

    expect(await cache.get('shell')).toBe(state);
    expect(store.reads).toBe(3);
  });

  it('reads the store again after forget(), remove() and set(), never answering with the old key', async () => {
    const { store, first, cache } = await cacheOverStoredKey();
    expect(await cache.get('shell')).toBe(first);

    const second = new DPoPState(await keyPair());
    await store.set('shell', second); // replaced by another tab, which then says so
    cache.forget();
    expect(await cache.get('shell')).toBe(second);

    await cache.remove('shell');
    expect(await cache.get('shell')).toBeUndefined();
    const third = new DPoPState(await keyPair());
    await cache.set('shell', third);
    expect(await cache.get('shell')).toBe(third);
    expect(await store.get('shell')).toBe(third);
  });

  it('drops a read that was under way when the key pair changed', async () => {
    const { store, first, cache } = await cacheOverStoredKey();

    const pending = cache.get('shell');
    const second = new DPoPState(await keyPair());
    await store.set('shell', second);
    cache.forget();

    expect(await pending).toBe(first); // that proof was already under way with the old key
    expect(await cache.get('shell')).toBe(second);
  });

  it('drops the key pair it holds when a token is bound to another one (expect), and keeps the right one', async () => {
    const { store, first, cache } = await cacheOverStoredKey();
    expect(await cache.get('shell')).toBe(first);
    const second = new DPoPState(await keyPair());
    await store.set('shell', second); // another tab's new sign-in, not heard of here
    const thumbprint = async (state: DPoPState) =>
      calculateJwkThumbprint(await crypto.subtle.exportKey('jwk', state.keys.publicKey));

    await cache.expect('shell', await thumbprint(first));
    expect(await cache.get('shell')).toBe(first);
    expect(store.reads).toBe(1);

    await cache.expect('shell', await thumbprint(second));
    expect(await cache.get('shell')).toBe(second);
    expect(store.reads).toBe(2);
  });
});
