import { ApiProblemError, type ApiClient, type ApiSchemas } from '@atrium/sdk';
import {
  TELEMETRY_BODY_LIMIT_BYTES,
  TELEMETRY_MAX_REPORTS,
  TELEMETRY_MAX_SAMPLES,
} from '@atrium/sdk/telemetry-rules';
import { onCLS, onINP, onLCP, type Metric } from 'web-vitals';

/*
 * Field telemetry, loaded as its own chunk only after a remote has loaded or failed (the shell's first paint
 * never waits for it, and its initial JavaScript does not carry it or web-vitals). The remote slot leaves
 * performance marks (field-telemetry-entry.ts); this reads them, earlier ones included, adds web vitals, and sends
 * small batches to `POST /api/telemetry` through the shell's API client.
 *
 * Why fetch with keepalive, not sendBeacon: the API accepts the shell's tokens only DPoP-bound, with a proof
 * per request in headers. sendBeacon cannot set headers, and a token put in its body would be a bearer token
 * again, usable by whoever reads it. The API client signs a proof and sends the batch with `keepalive`, so
 * it completes even if the page goes away. It sends when the page is hidden (visibilitychange, which comes
 * before pagehide and while the page can still run the proof's signing), and once a minute meanwhile.
 *
 * What is sent: per remote version, load and first-render times, failure counts by kind and web-vitals
 * ratings: no URL, no user data (the API knows who sends, and keeps only per-minute sums).
 */

/** A remote slot's mark, as the slot writes it: `atrium:remote-<event>:<remote>`, detail [version, why]. */
export interface RemoteMark {
  readonly name: string;
  readonly startTime: number;
  readonly detail: unknown;
}

/** A wire type made writable, so the tallies can be counted in place before they are sent. */
type Tally<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? Tally<U>[] : Tally<T[K]> };

/** One remote version's tallies: the API's `VersionReport` (its OpenAPI document), counted in place. */
export type VersionReport = Tally<ApiSchemas['schemas']['VersionReport']>;

/** Web vitals kept per version and batch: the shell's own cap, below the API's (a page reports each about once). */
const MAX_VITALS = 20;

/** Bytes of a batch as sent (the API counts the body's bytes). */
const bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * How the slot's failure reasons count: `refused` (the release is not what the registry recorded) is an
 * integrity failure, `invalid` (no Feature to render) a render failure.
 */
const FAILURE_KIND: Record<string, keyof VersionReport['failures']> = {
  download: 'download',
  timeout: 'timeout',
  refused: 'integrity',
  invalid: 'render',
  render: 'render',
};

const MARK = /^atrium:remote-(load|loaded|rendered|failed):(.+)$/;

/** The tallies since the last batch, and the batching: no timers or browser APIs (see startFieldTelemetry). */
export function createFieldTelemetry(send: (reports: VersionReport[]) => Promise<unknown>) {
  let tallies = new Map<string, VersionReport>();
  /** The remote on screen: the page's web vitals are counted for it. */
  let onScreen: { remote: string; version: string } | undefined;
  /** When each remote's last load started and ended (ms on the page's clock), for the durations. */
  const started = new Map<string, number>();
  const loaded = new Map<string, number>();

  const tallyOf = (remote: string, version: string): VersionReport => {
    const key = `${remote}@${version}`;
    let tally = tallies.get(key);
    if (!tally) {
      tally = {
        remote,
        version,
        loadMs: [],
        renderMs: [],
        failures: { download: 0, integrity: 0, timeout: 0, render: 0 },
        vitals: [],
      };
      tallies.set(key, tally);
    }
    return tally;
  };

  return {
    /**
     * Counts one of the slot's marks (other marks are ignored): the time to load runs from `load` to
     * `loaded`, the time to first render from `loaded` to `rendered`.
     */
    recordMark({ name, startTime, detail }: RemoteMark): void {
      const [, event, remote] = MARK.exec(name) ?? [];
      const [version, kind] = Array.isArray(detail) ? (detail as unknown[]) : [];
      if (!event || !remote || typeof version !== 'string') return;
      if (event === 'load') {
        started.set(remote, startTime);
        return;
      }
      const tally = tallyOf(remote, version);
      const since = event === 'loaded' ? started.get(remote) : loaded.get(remote);
      const samples = event === 'loaded' ? tally.loadMs : event === 'rendered' ? tally.renderMs : undefined;
      if (samples && since !== undefined && samples.length < TELEMETRY_MAX_SAMPLES) {
        samples.push(Math.round(startTime - since));
      }
      if (event === 'loaded') loaded.set(remote, startTime);
      if (event === 'rendered') onScreen = { remote, version };
      // A failure without a reason (not a RemoteLoadError) is a download failure.
      const failure =
        event === 'failed' ? FAILURE_KIND[typeof kind === 'string' ? kind : 'download'] : undefined;
      if (failure && tally.failures[failure] < TELEMETRY_MAX_SAMPLES) tally.failures[failure] += 1;
    },

    /** Counts a web vital for the remote on screen (none on the shell's own pages). */
    recordVital({ name, rating }: Pick<Metric, 'name' | 'rating'>): void {
      if (!onScreen || (name !== 'LCP' && name !== 'INP' && name !== 'CLS')) return;
      const { vitals } = tallyOf(onScreen.remote, onScreen.version);
      if (vitals.length < MAX_VITALS) vitals.push({ name, rating });
    },

    /**
     * Sends what was counted, at most one batch the API accepts (what does not fit waits for the next). A
     * batch refused for rate (429) is counted again later; any other failure drops it: telemetry never
     * retries in a loop or grows without bound.
     */
    async flush(): Promise<void> {
      if (tallies.size === 0) return;
      const batch: VersionReport[] = [];
      for (const [key, tally] of tallies) {
        if (batch.length === TELEMETRY_MAX_REPORTS) break;
        const body = JSON.stringify({ reports: [...batch, tally] });
        if (bytes(body) > TELEMETRY_BODY_LIMIT_BYTES && batch.length) break;
        batch.push(tally);
        tallies.delete(key);
      }
      try {
        await send(batch);
      } catch (error) {
        if (error instanceof ApiProblemError && error.status === 429) {
          const later = tallies;
          tallies = new Map(batch.map((tally) => [`${tally.remote}@${tally.version}`, tally]));
          for (const [key, tally] of later) tallies.set(key, tally);
        }
      }
    },
  };
}

let stop: (() => void) | undefined;

/**
 * Starts field telemetry once per page, sending through the shell's API client (none outside the shell's
 * context: nothing starts); returns how to stop it (tests).
 */
export function startFieldTelemetry(api: ApiClient | undefined, flushEveryMs = 60_000): () => void {
  if (stop) return stop;
  if (!api) return () => undefined;
  const telemetry = createFieldTelemetry((reports) =>
    api.post('/api/telemetry', { reports }, { keepalive: true }),
  );
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) telemetry.recordMark(entry as PerformanceMark);
  });
  observer.observe({ type: 'mark', buffered: true });
  const recordVital = (metric: Metric) => telemetry.recordVital(metric);
  onLCP(recordVital);
  onINP(recordVital);
  onCLS(recordVital);
  // After web-vitals' own listeners, so the vitals they report on hiding are in this batch.
  const onHidden = () => {
    if (document.visibilityState === 'hidden') void telemetry.flush();
  };
  document.addEventListener('visibilitychange', onHidden);
  const timer = setInterval(() => void telemetry.flush(), flushEveryMs);
  stop = () => {
    observer.disconnect();
    document.removeEventListener('visibilitychange', onHidden);
    clearInterval(timer);
    stop = undefined;
  };
  return stop;
}
