import {
  UserManager,
  type RefreshState,
  type User,
  type UserManagerSettings,
  type UseRefreshTokenArgs,
} from 'oidc-client-ts';
import { DPoPKeyCache } from './dpop-key-cache';
import { boundKeyThumbprint } from './jwt-claims';

/** How the tabs of one browser share a session; the defaults are the browser's own. */
export interface SessionSharing {
  /** Serialises renewals across tabs. Defaults to `navigator.locks` (Web Locks). */
  readonly locks?: LockManager | undefined;
  /** Tells the other tabs that the stored user changed. Defaults to a `BroadcastChannel` for this client. */
  readonly channel?: BroadcastChannel | undefined;
}

type SessionMessage = 'stored' | 'removed';

/**
 * A `UserManager` whose tabs share one session. Keycloak rotates refresh tokens and refuses a used one, so
 * tabs that each renewed on their own would race and log each other out (oidc-client-ts issue 430):
 *
 * - the user lives in storage every tab of the origin reads, beside the DPoP key that `IndexedDbDPoPStore`
 *   keeps per origin. `settings.userStore` must be one whose completed writes every tab reads at once (the
 *   shell's is an `IndexedDbStateStore`): the lock orders the renewals, not a store that reaches the
 *   other tabs later, as localStorage does in Chromium;
 * - a renewal runs under a Web Lock (the one ending a session takes), so only one tab (and one call within a
 *   tab) redeems a refresh token at a time, and never while the session ends; whoever waited finds a different
 *   refresh token stored once it gets the lock, and adopts that result instead of redeeming the spent one;
 * - every change of the stored user is announced on a BroadcastChannel, so the other tabs load renewed tokens
 *   (and move their expiry timers) or drop a removed user at once;
 * - the renewal before expiry (`automaticSilentRenew`) is this class's own: once it holds the lock it renews
 *   only if the stored token still expires soon. A tab whose timer fired just after another tab renewed (the
 *   message not yet handled, or the timer late, as in a background tab) takes that renewal instead of
 *   redeeming the new refresh token a second time.
 *
 * A sign-out in another tab leaves this tab signed out with {@link SharedUserManager.signedOutElsewhere} set,
 * so the shell asks before signing in again rather than racing that tab's sign-out at Keycloak.
 */
export class SharedUserManager extends UserManager {
  readonly #locks: LockManager | undefined;
  readonly #channel: BroadcastChannel;
  readonly #sessionLock: string;
  readonly #listeners = new Set<() => void>();
  #signedOutElsewhere = false;
  #renewsBeforeExpiry = false;
  // Without Web Locks (old browsers) renewals and session ends are still serialised within the tab.
  readonly #localQueues = new Map<string, Promise<unknown>>();

  constructor(settings: UserManagerSettings, sharing: SessionSharing = {}) {
    // The library's renewal service would renew whenever a timer fires; this class starts its own below.
    super({ ...settings, automaticSilentRenew: false });
    const scope = `${settings.authority}|${settings.client_id}`;
    this.#sessionLock = `atrium:session-change:${scope}`;
    this.#locks = sharing.locks ?? globalThis.navigator?.locks ?? undefined;
    this.#channel = sharing.channel ?? new BroadcastChannel(`atrium:session:${scope}`);
    this.#channel.addEventListener('message', (event: MessageEvent<SessionMessage>) => {
      void this.#onMessage(event.data);
    });
    if (settings.automaticSilentRenew ?? true) this.startSilentRenew();
  }

  /** Renews the tokens shortly before the access token expires, unless someone has already (see the class). */
  override startSilentRenew(): void {
    if (this.#renewsBeforeExpiry) return;
    this.#renewsBeforeExpiry = true;
    this.events.addAccessTokenExpiring(this.#renewBeforeExpiry);
    // Loading the stored session arms the expiry timers, as the library's renewal service does.
    this.getUser().catch(() => undefined);
  }

  override stopSilentRenew(): void {
    this.#renewsBeforeExpiry = false;
    this.events.removeAccessTokenExpiring(this.#renewBeforeExpiry);
  }

  /** Whether the session ended because another tab signed out (or its session ended) while this one was open. */
  get signedOutElsewhere(): boolean {
    return this.#signedOutElsewhere;
  }

  /** Calls `listener` whenever {@link SharedUserManager.signedOutElsewhere} changes; returns the unsubscribe. */
  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  override async storeUser(user: User | null): Promise<void> {
    if (user === null) {
      if (!(await this.#endSession())) return;
    } else {
      await super.storeUser(user);
      this.#setSignedOutElsewhere(false);
    }
    const message: SessionMessage = user === null ? 'removed' : 'stored';
    this.#channel.postMessage(message);
  }

  /**
   * Removes the stored session and its key pair, once: whether it did (false when no session was stored).
   *
   * - The key pair goes before the session does. The library removes the session first and the key after it,
   *   so a sign-in started in between (the page saw no session) bound its code to the key about to go, and its
   *   callback, signing with a new key, was refused.
   * - A session is ended once. Several things find a session over at about the same time (the session check,
   *   a refused renewal already on its way, another tab); the first ends it and the page starts a sign-in,
   *   which makes a new key. A second end removing "the" key pair would take that sign-in's, so ends run one
   *   at a time across the tabs, and one that finds no session stored leaves the key pair alone.
   * - Ends and renewals take turns under one lock. oidc-client-ts makes a key pair for a token request when
   *   the store has none, so a renewal that found the session still stored after its key pair was removed
   *   made one of its own, and the sign-in the page started bound its code to one key or the other. A renewal
   *   that waited through an end finds no session and sends nothing.
   */
  async #endSession(): Promise<boolean> {
    return this.#exclusively(this.#sessionLock, async () => {
      if ((await this.settings.userStore.get(this._userStoreKey)) === null) return false;
      await this.settings.dpop?.store.remove(this.settings.client_id);
      await this.settings.userStore.remove(this._userStoreKey);
      return true;
    });
  }

  /** Stops listening to the other tabs and stops this tab's renewal timers; the stored session stays. */
  close(): void {
    this.#channel.close();
    this.stopSilentRenew();
    void this._events.unload();
  }

  /** A proof for `user`'s token, signed with the key that token is bound to (see {@link DPoPKeyCache.expect}). */
  override async dpopProof(
    url: string,
    user: User,
    httpMethod?: string,
    nonce?: string,
  ): Promise<string | undefined> {
    await this.#expectKeyOf(user);
    return super.dpopProof(url, user, httpMethod, nonce);
  }

  protected override async _useRefreshToken(args: UseRefreshTokenArgs): Promise<User> {
    return this.#exclusively(this.#sessionLock, () => this.#renewHoldingLock(args));
  }

  readonly #renewBeforeExpiry = async (): Promise<void> => {
    try {
      await this.#exclusively(this.#sessionLock, async () => {
        const stored = await this._loadUser();
        if (stored === null) return; // signed out meanwhile: nothing to renew
        const refreshToken = stored.refresh_token;
        if (!refreshToken) {
          await this.signinSilent(); // no refresh token to redeem: the library's other ways apply
          return;
        }
        if ((stored.expires_in ?? 0) > this.settings.accessTokenExpiringNotificationTimeInSeconds) {
          // The token this timer was set for has been replaced by one that does not expire soon.
          await this._events.load(stored);
          return;
        }
        await this.#renewHoldingLock({ state: refreshStateOf(stored, refreshToken) });
      });
    } catch (error) {
      // What the library's renewal service does with a failure, retries aside (the shell allows none): the
      // session lifecycle decides whether the session is over or Keycloak is just not answering.
      await this._events._raiseSilentRenewError(error instanceof Error ? error : new Error(String(error)));
    }
  };

  async #renewHoldingLock(args: UseRefreshTokenArgs): Promise<User> {
    const stored = await this._loadUser();
    if (stored === null) throw new Error('The session ended while a renewal was waiting.');
    // The refresh token is bound to the same key as the access token: sign the renewal with that one.
    await this.#expectKeyOf(stored);
    if (stored.refresh_token !== args.state.refresh_token) {
      // Someone renewed while this call waited for the lock: the refresh token it holds is spent, and
      // redeeming it again would be refused (and would look like theft to Keycloak). Take their result.
      await this._events.load(stored);
      return stored;
    }
    try {
      // signinSilent() passes its own (usually undefined) timeout, which hides the settings' one: without
      // this a refresh sent to a Keycloak that accepts the connection and never answers waits for ever.
      const timeoutInSeconds = args.timeoutInSeconds ?? this.settings.silentRequestTimeoutInSeconds;
      return await super._useRefreshToken({ ...args, timeoutInSeconds });
    } catch (error) {
      // A sign-in in another tab stores a new session without the lock, and makes Keycloak refuse the
      // refresh token this renewal sent: the session is not over, it has just been replaced.
      const replaced = await this._loadUser();
      if (replaced === null || replaced.refresh_token === args.state.refresh_token) throw error;
      await this._events.load(replaced);
      return replaced;
    }
  }

  async #expectKeyOf(user: User): Promise<void> {
    const dpopStore = this.settings.dpop?.store;
    const jkt = boundKeyThumbprint(user.access_token);
    if (dpopStore instanceof DPoPKeyCache && jkt !== undefined) {
      await dpopStore.expect(this.settings.client_id, jkt);
    }
  }

  async #exclusively<T>(lockName: string, task: () => Promise<T>): Promise<T> {
    if (this.#locks !== undefined) return this.#locks.request(lockName, task);
    const run = (this.#localQueues.get(lockName) ?? Promise.resolve()).then(task, task);
    this.#localQueues.set(
      lockName,
      run.catch(() => undefined),
    );
    return run;
  }

  async #onMessage(message: SessionMessage): Promise<void> {
    // Another tab signed out (its key pair is gone) or stored a session: read the key pair afresh.
    const dpopStore = this.settings.dpop?.store;
    if (dpopStore instanceof DPoPKeyCache) dpopStore.forget();
    if (message === 'stored') {
      const user = await this._loadUser();
      if (user === null) return;
      this.#setSignedOutElsewhere(false);
      // Raises userLoaded, so react-oidc-context shows the new user, and re-arms the expiry timers.
      await this._events.load(user);
    } else if (message === 'removed') {
      this.#setSignedOutElsewhere(true);
      await this._events.unload();
    }
  }

  #setSignedOutElsewhere(value: boolean): void {
    if (this.#signedOutElsewhere === value) return;
    this.#signedOutElsewhere = value;
    for (const listener of this.#listeners) listener();
  }
}

/** What a renewal of `user` sends and keeps (the library builds the same from the stored user). */
function refreshStateOf(user: User, refreshToken: string): RefreshState {
  return {
    refresh_token: refreshToken,
    id_token: user.id_token,
    session_state: user.session_state,
    scope: user.scope,
    profile: user.profile,
    data: user.state,
  };
}
