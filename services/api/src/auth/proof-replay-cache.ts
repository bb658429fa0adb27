/**
 * How long a proof stays acceptable from the moment one is accepted, in ms: its maximum age plus the clock
 * tolerance on both sides (its `iat` may be that far in the future, and that much past its maximum age). Any
 * record of a used proof is kept at least this long.
 */
export function proofWindowMs(maxAgeSeconds: number, toleranceSeconds: number): number {
  return (maxAgeSeconds + 2 * toleranceSeconds) * 1000;
}

/** A clock in milliseconds, injectable so that tests can move time without sleeping. */
export type MillisecondClock = () => number;

/**
 * The `jti`s of DPoP proofs this process has accepted, so that each proof is used once (RFC 9449 §11.1).
 *
 * Two generations of one `spanMs` each: a new jti goes into the current one, and when a span has passed the
 * current becomes the previous and the previous is forgotten. A jti is therefore remembered for at least
 * one full span after it was accepted. The span is the time a proof stays acceptable ({@link proofWindowMs}), so by the time a jti is forgotten, its proof is refused as too old
 * anyway. Forgetting costs nothing per entry (no timers, no sweeps).
 *
 * Bounded: when both generations together hold `maxEntries`, the previous generation is dropped early. That
 * re-opens replay of those proofs for the rest of their window, and only happens at a sustained rate of
 * `maxEntries / span` accepted proofs per second on one process (see docs/security.md#access-tokens-at-the-api).
 *
 * Per process. On PostgreSQL every accepted id is also recorded for all replicas (shared-proof-replays.ts); this
 * cache still refuses a replay to the same replica without asking the database.
 */
export class ProofReplayCache {
  private current = new Set<string>();
  private previous = new Set<string>();
  private currentStartedAt: number;

  constructor(
    private readonly spanMs: number,
    private readonly maxEntries = 500_000,
    private readonly now: MillisecondClock = Date.now,
  ) {
    this.currentStartedAt = now();
  }

  /** Records `id` and returns true, or returns false when it was already recorded (a replay). */
  use(id: string): boolean {
    this.rotate();
    if (this.current.has(id) || this.previous.has(id)) return false;
    if (this.current.size + this.previous.size >= this.maxEntries) {
      this.previous = this.current;
      this.current = new Set();
      this.currentStartedAt = this.now();
      if (this.previous.size >= this.maxEntries) this.previous = new Set();
    }
    this.current.add(id);
    return true;
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }

  private rotate(): void {
    const elapsed = this.now() - this.currentStartedAt;
    if (elapsed < this.spanMs) return;
    // More than two spans since the last rotation: everything held is older than a span.
    this.previous = elapsed >= 2 * this.spanMs ? new Set() : this.current;
    this.current = new Set();
    this.currentStartedAt = this.now();
  }
}
