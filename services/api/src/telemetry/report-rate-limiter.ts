const WINDOW_MS = 60_000;

/**
 * Adds one request of `key` to the window that starts at `windowStart` (ms since the Unix epoch), as every
 * replica counts it, and resolves with that window's count so far.
 */
export type SharedWindowCount = (key: string, windowStart: number) => Promise<number>;

/**
 * Counts requests per key (a person's `sub`) in fixed one-minute windows. In memory first: what this process
 * alone has counted past the limit is refused without asking anyone. With a shared count (on PostgreSQL, every
 * replica's: telemetry_quota), a request memory would allow is counted there too and refused once all replicas
 * together have reached the limit, so a person gets the limit once, not once per replica. Without one (SQLite:
 * one process), memory is the whole count. Keys in memory live only as long as their window.
 */
export class ReportRateLimiter {
  private windowStart = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly shared?: SharedWindowCount,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request for `key`: 0 if allowed, else the seconds until the next window. */
  async take(key: string): Promise<number> {
    const now = this.now();
    const window = Math.floor(now / WINDOW_MS) * WINDOW_MS;
    if (window !== this.windowStart) {
      this.windowStart = window;
      this.counts.clear();
    }
    const wait = Math.max(1, Math.ceil((window + WINDOW_MS - now) / 1000));
    const used = this.counts.get(key) ?? 0;
    if (used >= this.perMinute) return wait;
    this.counts.set(key, used + 1);
    if (this.shared === undefined) return 0;
    return (await this.shared(key, window)) > this.perMinute ? wait : 0;
  }
}
