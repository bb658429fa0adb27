import { describe, expect, it } from 'vitest';
import { waitUntil } from './wait.ts';

const failure = (reason: 'timeout' | 'exited') => new Error(reason);

describe('waitUntil', () => {
  it('returns the first value the probe gives', async () => {
    let calls = 0;
    const value = await waitUntil(() => (++calls === 3 ? 'ready' : undefined), {
      timeoutMs: 5_000,
      intervalMs: 1,
      failure,
    });
    expect(value).toBe('ready');
    expect(calls).toBe(3);
  });

  it('probes once more at the deadline, then fails with the error the caller gave', async () => {
    let calls = 0;
    await expect(
      waitUntil(() => void calls++, { timeoutMs: 200, intervalMs: 1_000, failure }),
    ).rejects.toThrow('timeout');
    expect(calls).toBe(2);
  });

  it('stops at once when what it waits for can no longer come', async () => {
    let calls = 0;
    await expect(
      waitUntil(() => void calls++, { timeoutMs: 5_000, intervalMs: 1, isAlive: () => calls < 2, failure }),
    ).rejects.toThrow('exited');
    expect(calls).toBe(2);
  });
});
