import { describe, expect, it } from 'vitest';
import { ReportRateLimiter, type SharedWindowCount } from './report-rate-limiter.js';

describe('ReportRateLimiter', () => {
  it('allows the limit per person per minute, then says how long to wait', async () => {
    let now = Date.UTC(2026, 10, 23, 12, 0, 15);
    const limiter = new ReportRateLimiter(2, undefined, () => now);
    expect([await limiter.take('a'), await limiter.take('a'), await limiter.take('b')]).toEqual([0, 0, 0]);
    expect(await limiter.take('a')).toBe(45);
    now += 45_000;
    expect(await limiter.take('a')).toBe(0);
  });

  it('with a count shared by replicas, refuses what this replica would allow once all of them reached the limit', async () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 50);
    // Another replica already took two of a's three this minute.
    const counts = new Map<string, number>([['a@' + Date.UTC(2026, 10, 23, 12, 0, 0), 2]]);
    const asked: string[] = [];
    const shared: SharedWindowCount = (key, windowStart) => {
      asked.push(key);
      const count = (counts.get(`${key}@${windowStart}`) ?? 0) + 1;
      counts.set(`${key}@${windowStart}`, count);
      return Promise.resolve(count);
    };
    const limiter = new ReportRateLimiter(3, shared, () => now);
    expect(await limiter.take('a')).toBe(0);
    expect(await limiter.take('a')).toBe(10);
    expect(await limiter.take('b')).toBe(0);
    expect(asked).toEqual(['a', 'a', 'b']);
  });

  it('refuses without asking the shared count what this replica alone counted past the limit', async () => {
    let asked = 0;
    const limiter = new ReportRateLimiter(
      2,
      () => {
        asked += 1;
        return Promise.resolve(asked);
      },
      () => Date.UTC(2026, 10, 23, 12, 0, 0),
    );
    expect([await limiter.take('a'), await limiter.take('a')]).toEqual([0, 0]);
    expect(await limiter.take('a')).toBe(60);
    expect(await limiter.take('a')).toBe(60);
    expect(asked).toBe(2);
  });

  it('passes a failing shared count on, so the request is answered with its error', async () => {
    const unavailable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const limiter = new ReportRateLimiter(2, () => Promise.reject(unavailable));
    await expect(limiter.take('a')).rejects.toBe(unavailable);
  });
});
