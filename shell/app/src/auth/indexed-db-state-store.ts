import type { StateStore } from 'oidc-client-ts';

/**
 * An oidc-client-ts `StateStore` in IndexedDB: where the shell keeps the signed-in user, shared by the tabs of
 * the origin and kept across a reload.
 *
 * Not localStorage, because the tabs coordinate renewals with a Web Lock and a lock orders nothing in
 * localStorage: Chromium gives each renderer its own copy of an origin's localStorage and brings the others'
 * writes over later, so a tab that took the lock right after another tab renewed could still read the spent
 * refresh token and redeem it again (Keycloak refuses it). A write to IndexedDB is done once its transaction
 * completes, and every later transaction, from any tab, reads it.
 *
 * One connection per store, opened at the first use (every API request reads the user).
 */
export class IndexedDbStateStore implements StateStore {
  #database: Promise<IDBDatabase> | undefined;

  constructor(
    private readonly databaseName = 'atrium-session',
    private readonly storeName = 'state',
  ) {}

  /** Resolves once the value is committed, so whoever reads next (in any tab) reads it. */
  async set(key: string, value: string): Promise<void> {
    await this.#transact('readwrite', (store) => store.put(value, key));
  }

  async get(key: string): Promise<string | null> {
    return (
      (await this.#transact('readonly', (store) => store.get(key) as IDBRequest<string | undefined>)) ?? null
    );
  }

  /** Removes the value and returns it, in one transaction. */
  async remove(key: string): Promise<string | null> {
    const removed = await this.#transact('readwrite', (store) => {
      const value = store.get(key) as IDBRequest<string | undefined>;
      store.delete(key);
      return value;
    });
    return removed ?? null;
  }

  async getAllKeys(): Promise<string[]> {
    return this.#transact('readonly', (store) => store.getAllKeys() as IDBRequest<string[]>);
  }

  /** Runs `work` in one transaction and gives its request's result once the transaction has completed. */
  async #transact<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
    const database = await (this.#database ??= this.#open());
    const transaction = database.transaction(this.storeName, mode);
    const request = work(transaction.objectStore(this.storeName));
    await new Promise((resolve, reject) => {
      transaction.oncomplete = resolve;
      transaction.onabort = () => reject(transaction.error ?? new Error('IndexedDB: transaction aborted'));
    });
    return request.result;
  }

  #open(): Promise<IDBDatabase> {
    return new Promise((resolve, reject) => {
      const opening = indexedDB.open(this.databaseName);
      opening.onupgradeneeded = () => opening.result.createObjectStore(this.storeName);
      opening.onerror = () => {
        this.#database = undefined; // the next use tries again
        reject(opening.error ?? new Error('IndexedDB: cannot open'));
      };
      opening.onsuccess = () => {
        // The browser may close a connection (its storage cleared, for one): the next use opens another.
        opening.result.onclose = () => (this.#database = undefined);
        resolve(opening.result);
      };
    });
  }
}
