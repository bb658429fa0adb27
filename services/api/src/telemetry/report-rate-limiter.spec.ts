import { describe, expect, it } from 'vitest';
import { ReportRateLimiter } from './report-rate-limiter.js';

describe('ReportRateLimiter', () => {
  it('allows the limit per person per minute, then says how long to wait', () => {
    let now = Date.UTC(2026, 10, 23, 12, 0, 15);
    const limiter = new ReportRateLimiter(2, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('b')]).toEqual([0, 0, 0]);
    expect(limiter.take('a')).toBe(45);
    now += 45_000;
    expect(limiter.take('a')).toBe(0);
  });
});
