import type { DPoPState, UserManagerSettings } from 'oidc-client-ts';

/** The DPoP key store interface oidc-client-ts expects (it does not export the name). */
export type DPoPStore = NonNullable<UserManagerSettings['dpop']>['store'];

/**
 * The DPoP key store of the page: oidc-client-ts's store (IndexedDB, shared by the tabs of the origin) with
 * the key pair kept in memory once read. oidc-client-ts reads the store for every proof it signs, and opening
 * IndexedDB costs a page 20-30 ms the first time; the first API call of a page (the registry's list) waits on
 * it. {@link DPoPKeyCache.warm} starts that read while the page still loads its configuration.
 *
 * The key pair is non-extractable wherever it is held, so memory exposes nothing IndexedDB does not. It must
 * never be used stale: a key is only ever replaced after a sign-out removed the old one, and every sign-out
 * and every stored session (this tab's or, through {@link DPoPKeyCache.forget}, another tab's) drops the
 * copy, so the next proof reads the store again.
 */
export class DPoPKeyCache implements DPoPStore {
  readonly #store: DPoPStore;
  readonly #held = new Map<string, Promise<DPoPState | undefined>>();
  #generation = 0;

  constructor(store: DPoPStore) {
    this.#store = store;
  }

  /** Reads every key pair of the store into memory (there is one per client), without waiting for the answer. */
  warm(): void {
    const generation = this.#generation;
    void this.#store
      .getAllKeys()
      .then((keys) => {
        for (const key of keys) if (generation === this.#generation) void this.get(key);
      })
      .catch(() => undefined); // the first proof reads the store again and reports what is wrong
  }

  async get(key: string): Promise<DPoPState> {
    let held = this.#held.get(key);
    if (held === undefined) {
      const generation = this.#generation;
      held = this.#store.get(key);
      this.#held.set(key, held);
      // A failed or empty read is not kept: the next proof asks the store again.
      const drop = () => {
        if (generation === this.#generation && this.#held.get(key) === held) this.#held.delete(key);
      };
      held.then((state) => state === undefined && drop(), drop);
    }
    // oidc-client-ts's own declaration promises a state, yet IndexedDB answers undefined for a missing key.
    return (await held) as DPoPState;
  }

  async set(key: string, value: DPoPState): Promise<void> {
    this.forget();
    const generation = this.#generation;
    await this.#store.set(key, value);
    // Not kept if the key pair changed meanwhile: the next proof reads the store.
    if (generation === this.#generation) this.#held.set(key, Promise.resolve(value));
  }

  /**
   * Drops the key pair held for `key` unless it is the one whose RFC 7638 thumbprint is `jkt` (the `cnf.jkt`
   * of the token about to be used): a copy read before this page heard of another tab's new sign-in (while its
   * configuration still loaded, or a message lost) is never used to sign.
   */
  async expect(key: string, jkt: string): Promise<void> {
    const held = this.#held.get(key);
    if (held === undefined) return;
    const state = await held.catch(() => undefined);
    if (state !== undefined && (await thumbprintOf(state.keys.publicKey)) !== jkt) this.forget();
  }

  async remove(key: string): Promise<DPoPState> {
    this.forget();
    return this.#store.remove(key);
  }

  getAllKeys(): Promise<string[]> {
    return this.#store.getAllKeys();
  }

  /** Drops the key pairs held in memory; the next proof reads the store (another tab changed the session). */
  forget(): void {
    this.#generation += 1;
    this.#held.clear();
  }
}

const thumbprints = new WeakMap<CryptoKey, Promise<string>>();

/** The RFC 7638 thumbprint of an EC public key, as Keycloak puts it in `cnf.jkt`; computed once per key. */
function thumbprintOf(publicKey: CryptoKey): Promise<string> {
  let thumbprint = thumbprints.get(publicKey);
  if (thumbprint === undefined) {
    thumbprint = (async () => {
      const { crv, kty, x, y } = await crypto.subtle.exportKey('jwk', publicKey);
      // The required members in lexicographic order, no whitespace (RFC 7638, section 3).
      const canonical = JSON.stringify({ crv, kty, x, y });
      const digest = new Uint8Array(
        await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical)),
      );
      let binary = '';
      for (const byte of digest) binary += String.fromCharCode(byte);
      return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    })();
    thumbprints.set(publicKey, thumbprint);
  }
  return thumbprint;
}
