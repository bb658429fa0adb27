/**
 * Counts requests per key (a person's `sub`) in fixed one-minute windows, in memory: each API instance
 * limits on its own, so N replicas accept up to N times the limit from one person. The keys live only as
 * long as their window and are never written anywhere.
 */
export class ReportRateLimiter {
  private windowStart = 0;
  private readonly counts = new Map<string, number>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes one request for `key`: 0 if allowed, else the seconds until the next window. */
  take(key: string): number {
    const now = this.now();
    const window = Math.floor(now / 60_000) * 60_000;
    if (window !== this.windowStart) {
      this.windowStart = window;
      this.counts.clear();
    }
    const used = this.counts.get(key) ?? 0;
    if (used >= this.perMinute) return Math.max(1, Math.ceil((window + 60_000 - now) / 1000));
    this.counts.set(key, used + 1);
    return 0;
  }
}
