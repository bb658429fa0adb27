/**
 * Runs the signature checks of the DPoP proofs that arrive in one turn of the event loop back to back, in the
 * check phase right after it (`setImmediate`), instead of one inside each request's path.
 *
 * Under load the server reads several requests per turn. Verifying an ECDSA signature walks OpenSSL's tables
 * and code, far more memory than a request's own path; interleaved with requests, each verification found them
 * gone from the CPU's caches and pushed the request path's out in turn. Measured on the API's one pinned core
 * with 16 connections, a DPoP `/api/me` cost about 330 µs interleaved and 180 µs batched, against 108 µs with a
 * bearer token (docs/bench/api.md). A lone request waits for no one: its batch is itself, one tick later.
 */
export class SignatureBatch {
  private waiting: (() => void)[] = [];

  /** Resolves with what `verify` returns, run with the other checks of this turn; false if it throws. */
  check(verify: () => boolean): Promise<boolean> {
    return new Promise((resolve) => {
      const run = () => {
        try {
          resolve(verify());
        } catch {
          resolve(false);
        }
      };
      if (this.waiting.push(run) === 1) setImmediate(this.runAll);
    });
  }

  private readonly runAll = (): void => {
    const batch = this.waiting;
    this.waiting = [];
    for (const run of batch) run();
  };
}
