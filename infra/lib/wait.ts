import { setTimeout as sleep } from 'node:timers/promises';

export interface WaitOptions {
  timeoutMs: number;
  /** Pause between two probes; default 500 ms. */
  intervalMs?: number;
  /** False once what is awaited can no longer come (the process that should answer has exited): stop at once. */
  isAlive?: () => boolean;
  /** The error to throw when the time is up or `isAlive` said no: what was awaited and what was seen last. */
  failure: (reason: 'timeout' | 'exited') => Error;
}

/**
 * Probes until `probe` returns something other than undefined and returns that. Probes at least once, and once
 * more at the deadline, so a slow machine's last chance is not lost to the pause.
 */
export async function waitUntil<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  options: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (options.isAlive?.() === false) throw options.failure('exited');
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) throw options.failure('timeout');
    await sleep(Math.max(0, Math.min(options.intervalMs ?? 500, deadline - Date.now())));
  }
}

/** Polls a URL until it answers 2xx, or fails with `hint` after `timeoutMs` (or when `isAlive` says no). */
export async function waitForHttp(
  url: string,
  options: { timeoutMs: number; hint: string; isAlive?: () => boolean },
): Promise<void> {
  let last = 'no answer yet';
  await waitUntil(
    async () => {
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        if (response.ok) return true;
        last = `HTTP ${response.status}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      return undefined;
    },
    {
      timeoutMs: options.timeoutMs,
      isAlive: options.isAlive,
      failure: () => new Error(`${url} did not become ready (${last}). ${options.hint}`),
    },
  );
}
