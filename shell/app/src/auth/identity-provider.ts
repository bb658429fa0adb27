import { ErrorResponse, ErrorTimeout } from 'oidc-client-ts';

/** What the shell was doing when it found Keycloak unreachable; it carries on with it once Keycloak answers. */
export type IdentityProviderNeed = 'sign-in' | 'renewal' | 'session-check' | 'sign-out';

export type IdentityProviderState =
  | { readonly status: 'reachable' }
  | {
      readonly status: 'unreachable';
      /** What waits for Keycloak to come back. */
      readonly needs: readonly IdentityProviderNeed[];
      /** Failed checks since Keycloak was last reached. */
      readonly attempts: number;
      /** Epoch ms of the next automatic check; undefined while a check runs. */
      readonly retryAt: number | undefined;
    };

export interface IdentityProviderMonitorOptions {
  /** Fetches something cheap from Keycloak; resolves when it answered, throws when it did not. */
  readonly probe: (signal: AbortSignal) => Promise<void>;
  /** How long a check may take before Keycloak counts as unreachable (slow is unreachable too). */
  readonly timeoutMs?: number;
  /** Wait before the automatic check after `attempts` failed ones. */
  readonly backoffMs?: (attempts: number) => number;
}

/** Checks Keycloak's discovery document: no token, no CORS preflight, served by any healthy Keycloak. */
export function discoveryProbe(authority: string): (signal: AbortSignal) => Promise<void> {
  const url = `${authority.replace(/\/$/, '')}/.well-known/openid-configuration`;
  return async (signal) => {
    const response = await fetch(url, { signal, cache: 'no-store' });
    if (!response.ok) throw new Error(`Keycloak answered ${response.status}`);
  };
}

/** 8 s to answer: within the "about ten seconds" the person waits before the shell says what is wrong. */
export const IDENTITY_PROVIDER_TIMEOUT_SECONDS = 8;

/** 1, 2, 4, 8 s, then every 10 s: a Keycloak that restarts is noticed within seconds, a long outage costs little. */
export function defaultBackoffMs(attempts: number): number {
  return Math.min(1_000 * 2 ** Math.max(0, attempts - 1), 10_000);
}

/**
 * Whether a failed call to Keycloak means Keycloak did not answer (down, slow, behind a failing proxy), as
 * opposed to Keycloak answering no (`invalid_grant` and the like): the first is waited out, the second ends
 * the session.
 */
export function isUnreachable(error: unknown): boolean {
  if (error instanceof ErrorResponse) return false;
  if (error instanceof ErrorTimeout) return true;
  // fetch rejects with a TypeError when there is no answer at all (a NetworkError in some DOM
  // implementations); an aborted fetch with an AbortError or TimeoutError.
  if (error instanceof TypeError) return true;
  if (error instanceof DOMException && ['AbortError', 'TimeoutError', 'NetworkError'].includes(error.name)) {
    return true;
  }
  // oidc-client-ts reports a non-JSON error page as "<status text> (<status>)": a gateway's 502/503/504.
  return error instanceof Error && /\(5\d\d\)/.test(error.message);
}

/**
 * The one state machine for "can the shell reach Keycloak": reachable, or unreachable with what waits for it.
 * A failed call reports itself ({@link IdentityProviderMonitor.reportUnreachable}) and gets a promise that
 * settles once Keycloak answers again; meanwhile the monitor checks the discovery document with backoff, and
 * at once on {@link IdentityProviderMonitor.retry}.
 */
export class IdentityProviderMonitor {
  readonly #probe: (signal: AbortSignal) => Promise<void>;
  readonly #timeoutMs: number;
  readonly #backoffMs: (attempts: number) => number;
  readonly #listeners = new Set<() => void>();
  #state: IdentityProviderState = { status: 'reachable' };
  #waiters: (() => void)[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #checking: Promise<boolean> | undefined;
  #disposed = false;

  constructor({
    probe,
    timeoutMs = IDENTITY_PROVIDER_TIMEOUT_SECONDS * 1000,
    backoffMs = defaultBackoffMs,
  }: IdentityProviderMonitorOptions) {
    this.#probe = probe;
    this.#timeoutMs = timeoutMs;
    this.#backoffMs = backoffMs;
  }

  getSnapshot = (): IdentityProviderState => this.#state;

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** A call to Keycloak failed for want of an answer: settles once Keycloak answers again. */
  reportUnreachable(need: IdentityProviderNeed): Promise<void> {
    const waiting = new Promise<void>((resolve) => this.#waiters.push(resolve));
    if (this.#disposed) return waiting;
    const current = this.#state;
    const needs = current.status === 'unreachable' ? current.needs : [];
    if (current.status === 'reachable') {
      this.#set({ status: 'unreachable', needs: [need], attempts: 1, retryAt: undefined });
      this.#schedule();
    } else if (!needs.includes(need)) {
      this.#set({ ...current, needs: [...needs, need] });
    }
    return waiting;
  }

  /** A call to Keycloak was answered: whatever waited goes ahead. */
  reportReachable(): void {
    if (this.#disposed) return;
    this.#clearTimer();
    if (this.#state.status !== 'reachable') this.#set({ status: 'reachable' });
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve();
  }

  /**
   * Checks now (the probe has to answer within the timeout); resolves whether Keycloak answered. While
   * Keycloak is unreachable, a failed check schedules the next one.
   */
  check(): Promise<boolean> {
    this.#checking ??= this.#runCheck().finally(() => {
      this.#checking = undefined;
    });
    return this.#checking;
  }

  /** Resolves at once when Keycloak answers a check now; otherwise reports `need` and waits for Keycloak. */
  async whenReachable(need: IdentityProviderNeed): Promise<void> {
    if (await this.check()) return;
    return this.reportUnreachable(need);
  }

  /** The person's Retry: check now instead of at the scheduled time. */
  retry(): void {
    if (this.#state.status === 'reachable') return;
    void this.check();
  }

  /** Stops checking; pending waiters never settle. */
  dispose(): void {
    this.#disposed = true;
    this.#clearTimer();
    this.#listeners.clear();
  }

  async #runCheck(): Promise<boolean> {
    this.#clearTimer();
    if (this.#state.status === 'unreachable') this.#set({ ...this.#state, retryAt: undefined });
    const controller = new AbortController();
    const timeout = setTimeout(() => controller.abort(), this.#timeoutMs);
    let answered: boolean;
    try {
      await this.#probe(controller.signal);
      answered = true;
    } catch {
      answered = false;
    } finally {
      clearTimeout(timeout);
    }
    if (this.#disposed) return answered;
    if (answered) {
      this.reportReachable();
    } else if (this.#state.status === 'unreachable') {
      this.#set({ ...this.#state, attempts: this.#state.attempts + 1 });
      this.#schedule();
    }
    return answered;
  }

  #schedule(): void {
    if (this.#state.status !== 'unreachable') return;
    this.#clearTimer();
    const delay = this.#backoffMs(this.#state.attempts);
    this.#set({ ...this.#state, retryAt: Date.now() + delay });
    this.#timer = setTimeout(() => void this.check(), delay);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #set(state: IdentityProviderState): void {
    this.#state = state;
    for (const listener of this.#listeners) listener();
  }
}
