import { ApiProblemError, type ApiAuthorization, type ApiClient, type ApiSchemas } from '@atrium/sdk';
import {
  TELEMETRY_BODY_LIMIT_BYTES,
  TELEMETRY_MAX_ATTEMPTS,
  TELEMETRY_MAX_REPORTS,
} from '@atrium/sdk/telemetry-rules';
import { onCLS, onINP, onLCP, type Metric } from 'web-vitals';
import { type ApiAuthority, authorityOf } from '../auth/api-authorization';
import { remoteOutcomes, type RemoteOutcome } from './remote-outcomes';

/*
 * Field telemetry, loaded as its own chunk only after a remote has loaded or failed (the shell's first paint
 * never waits for it, and its initial JavaScript does not carry it or web-vitals). The remote slot tells it
 * what happened to each remote (./remote-outcomes.ts, earlier outcomes included); this counts them per
 * version, adds web vitals, and sends small batches to `POST /api/telemetry` through the shell's API client.
 *
 * Why fetch with keepalive, not sendBeacon: the API accepts the shell's tokens only DPoP-bound, with a proof
 * per request in headers. sendBeacon cannot set headers, and a token put in its body would be a bearer token
 * again, usable by whoever reads it. The batch goes with `keepalive`, so it completes even if the page goes
 * away. It is sent when the page is hidden (visibilitychange, and pagehide where that does not come) and once
 * a minute meanwhile.
 *
 * Why the proof is signed ahead ({@link createBeacon}): when the page goes away for good (a reload, a link
 * elsewhere, the tab closed) the browser runs the hide handlers and then nothing asynchronous of the page any
 * more. Signing a proof takes tasks (the key is read from IndexedDB, signed with WebCrypto), so a batch that
 * waited for one was never sent: the loads and failures of a page someone reloads were lost, precisely what a
 * broken canary produces. So the token and a proof for the next batch are obtained beforehand, and the hide
 * handler starts the request at once.
 *
 * What is sent: per remote version, load and first-render times, failure counts by kind and web-vitals
 * ratings: no URL, no user data (the API knows who sends, and keeps only per-minute sums). Each report keeps to
 * what the API accepts of one page (telemetry-rules.ts): at most TELEMETRY_MAX_ATTEMPTS loads tried, and a
 * render, or a failure to render, only of a load in the same report.
 */

/** A wire type made writable, so the tallies can be counted in place before they are sent. */
type Tally<T> = { -readonly [K in keyof T]: T[K] extends readonly (infer U)[] ? Tally<U>[] : Tally<T[K]> };

/** One remote version's tallies: the API's `VersionReport` (its OpenAPI document), counted in place. */
export type VersionReport = Tally<ApiSchemas['schemas']['VersionReport']>;

/** Web vitals kept per version and batch: the shell's own cap, below the API's (a page reports each about once). */
const MAX_VITALS = 20;
/** Reports refused for rate (429) kept to send again: beyond it the oldest go. */
const MAX_BACKLOG = 3 * TELEMETRY_MAX_REPORTS;

/** Bytes of a batch as sent (the API counts the body's bytes). */
const bytes = (text: string) => new TextEncoder().encode(text).length;

/** Loads a report has tried: the ones that succeeded and the ones that failed to load. */
const attempts = ({ loadMs, failures }: VersionReport) =>
  loadMs.length + failures.download + failures.integrity + failures.timeout;

/** How the slot's reasons for a failed load count: `refused` (not what the registry recorded) is integrity. */
const LOAD_FAILURE: Record<string, 'download' | 'timeout' | 'integrity'> = {
  download: 'download',
  timeout: 'timeout',
  refused: 'integrity',
};

/** The tallies since the last batch, and the batching: no timers or browser APIs (see startFieldTelemetry). */
export function createFieldTelemetry(send: (reports: VersionReport[]) => Promise<unknown>) {
  const tallies = new Map<string, VersionReport>();
  /** Reports refused for rate, sent again before new ones (each in a batch of its own version). */
  let backlog: VersionReport[] = [];
  /** The remote on screen: the page's web vitals are counted for it. */
  let onScreen: { remote: string; version: string } | undefined;
  /** When each remote's last load started and ended (ms on the page's clock), for the durations. */
  const started = new Map<string, number>();
  const loaded = new Map<string, number>();
  /** How long each remote version's last load took: counted again for a render failure its report lacks. */
  const lastLoadMs = new Map<string, number>();

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

  /** Counts a load that succeeded, within a page's bound of attempts; whether it was counted. */
  const countLoad = (tally: VersionReport, ms: number): boolean => {
    if (attempts(tally) >= TELEMETRY_MAX_ATTEMPTS) return false;
    tally.loadMs.push(ms);
    lastLoadMs.set(`${tally.remote}@${tally.version}`, ms);
    return true;
  };

  /**
   * Counts a failure to render. It belongs to a load of the same report: when the load went out in an earlier
   * batch (the remote crashed later), that load is counted again here, so the report stays one a page could
   * have made (the page's failure rate is then understated by that one load, never overstated).
   */
  const countRenderFailure = (tally: VersionReport): void => {
    const previous = lastLoadMs.get(`${tally.remote}@${tally.version}`);
    if (
      tally.failures.render >= tally.loadMs.length &&
      (previous === undefined || !countLoad(tally, previous))
    ) {
      return;
    }
    tally.failures.render += 1;
  };

  return {
    /**
     * Counts what the slot said: the time to load runs from `load` to `loaded`, the time to first render from
     * `loaded` to `rendered`. A module that loaded but has no Feature (`invalid`) is a load that failed to render.
     */
    recordOutcome({ remote, version, event, kind, at }: RemoteOutcome): void {
      if (event === 'load') {
        started.set(remote, at);
        return;
      }
      const tally = tallyOf(remote, version);
      const since = started.get(remote);
      if (event === 'loaded') {
        loaded.set(remote, at);
        if (since !== undefined) countLoad(tally, Math.round(at - since));
        return;
      }
      if (event === 'rendered') {
        onScreen = { remote, version };
        const loadedAt = loaded.get(remote);
        if (loadedAt !== undefined && tally.renderMs.length < tally.loadMs.length) {
          tally.renderMs.push(Math.round(at - loadedAt));
        }
        return;
      }
      // A failure without a reason (not a RemoteLoadError) is a download failure.
      const reason = kind ?? 'download';
      // The registry pulled the release and the page refused it: nothing the release did, so not counted.
      if (reason === 'withdrawn') return;
      if (reason === 'render') {
        countRenderFailure(tally);
      } else if (reason === 'invalid') {
        if (since !== undefined && countLoad(tally, Math.round(at - since))) tally.failures.render += 1;
      } else if (attempts(tally) < TELEMETRY_MAX_ATTEMPTS) {
        tally.failures[LOAD_FAILURE[reason] ?? 'download'] += 1;
      }
    },

    /** Counts a web vital for the remote on screen (none on the shell's own pages). */
    recordVital({ name, rating }: Pick<Metric, 'name' | 'rating'>): void {
      if (!onScreen || (name !== 'LCP' && name !== 'INP' && name !== 'CLS')) return;
      const { vitals } = tallyOf(onScreen.remote, onScreen.version);
      if (vitals.length < MAX_VITALS) vitals.push({ name, rating });
    },

    /**
     * Sends what was counted, at most one batch the API accepts (what does not fit waits for the next), with
     * one report per remote version. A batch refused for rate (429) is sent again later; any other failure
     * drops it: telemetry never retries in a loop or grows without bound.
     */
    async flush(): Promise<void> {
      if (tallies.size === 0 && backlog.length === 0) return;
      const batch: VersionReport[] = [];
      const inBatch = new Set<string>();
      const fits = (report: VersionReport) =>
        batch.length < TELEMETRY_MAX_REPORTS &&
        !inBatch.has(`${report.remote}@${report.version}`) &&
        (batch.length === 0 ||
          bytes(JSON.stringify({ reports: [...batch, report] })) <= TELEMETRY_BODY_LIMIT_BYTES);
      const take = (report: VersionReport) => {
        batch.push(report);
        inBatch.add(`${report.remote}@${report.version}`);
      };
      backlog = backlog.filter((report) => {
        if (!fits(report)) return true;
        take(report);
        return false;
      });
      for (const [key, tally] of tallies) {
        if (!fits(tally)) continue;
        take(tally);
        tallies.delete(key);
      }
      try {
        await send(batch);
      } catch (error) {
        if (error instanceof ApiProblemError && error.status === 429) {
          backlog = [...batch, ...backlog].slice(0, MAX_BACKLOG);
        }
      }
    },
  };
}

/**
 * How long a proof signed ahead is used. The API accepts one DPOP_PROOF_MAX_AGE_SECONDS (60 s by default) old;
 * half that leaves room for clocks and for a hidden page's throttled timers.
 */
const BEACON_FRESH_MS = 30_000;
/** A token that expires sooner than this is not used for a batch signed ahead. */
const TOKEN_MARGIN_MS = 5_000;

/** When the access token in `DPoP <jwt>` expires (ms), or never if it cannot be read. */
function tokenExpiry(authorization: string): number {
  try {
    const payload = authorization.split(' ')[1]!.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/');
    const exp = (JSON.parse(atob(payload)) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : Infinity;
  } catch {
    return Infinity;
  }
}

/**
 * An authenticated sendBeacon for `POST <api>/api/telemetry`: keeps the headers of one request (the token and a
 * proof for exactly that request) ready, so {@link send} starts it without waiting for anything; after each
 * use, and when they are about to grow too old, it gets the next ones. Without ready headers it sends nothing
 * and says so (the caller then goes through the API client, which signs first).
 */
export function createBeacon(authority: ApiAuthority, now: () => number = Date.now) {
  const url = `${authority.baseUrl}/api/telemetry`;
  let ready: { headers: ApiAuthorization; until: number } | undefined;
  let pending: Promise<void> | undefined;
  const fresh = () => ready !== undefined && ready.until > now();
  const arm = (): void => {
    if (pending || fresh()) return;
    pending = authority
      .authorize({ method: 'POST', url })
      .then(
        (headers) => {
          ready = {
            headers,
            until: Math.min(now() + BEACON_FRESH_MS, tokenExpiry(headers.authorization) - TOKEN_MARGIN_MS),
          };
        },
        // No session, or Keycloak away: nothing is ready, and the next batch goes the ordinary way.
        () => undefined,
      )
      .finally(() => (pending = undefined));
  };
  return {
    /** Gets headers ready unless fresh ones are (at start, and while the page is visible). */
    arm,
    /** Starts sending `body` now if headers are ready (each set is used once), else returns undefined. */
    send(body: unknown): Promise<Response> | undefined {
      const headers = fresh() ? ready?.headers : undefined;
      ready = undefined;
      if (!headers) return undefined;
      const sent = fetch(url, {
        method: 'POST',
        keepalive: true,
        headers: {
          Authorization: headers.authorization,
          DPoP: headers.dpop,
          'Content-Type': 'application/json',
          Accept: 'application/json, application/problem+json',
        },
        body: JSON.stringify(body),
      });
      arm();
      return sent;
    },
  };
}

let stop: (() => void) | undefined;

/**
 * Starts field telemetry once per page, sending through the shell's API client (none outside the shell's
 * context: nothing starts), with batches signed ahead when the client is the shell's own ({@link authorityOf});
 * returns how to stop it (tests).
 */
export function startFieldTelemetry(
  api: ApiClient | undefined,
  authority: ApiAuthority | undefined = api && authorityOf(api),
  flushEveryMs = 60_000,
): () => void {
  if (stop) return stop;
  if (!api) return () => undefined;
  const beacon = authority && createBeacon(authority);
  const telemetry = createFieldTelemetry(async (reports) => {
    const sending = beacon?.send({ reports });
    if (!sending) return api.post('/api/telemetry', { reports }, { keepalive: true });
    const response = await sending;
    if (!response.ok) {
      throw new ApiProblemError({
        type: 'about:blank',
        title: response.statusText,
        status: response.status,
        code: `http_${response.status}`,
      });
    }
    return undefined;
  });
  const stopListening = remoteOutcomes.listen((outcome) => telemetry.recordOutcome(outcome));
  const recordVital = (metric: Metric) => telemetry.recordVital(metric);
  onLCP(recordVital);
  onINP(recordVital);
  onCLS(recordVital);
  // After web-vitals' own listeners, so the vitals they report on hiding are in this batch. A page being
  // unloaded gets visibilitychange and then pagehide; flushing twice sends once (the tallies go with the first).
  const onVisibility = () => {
    if (document.visibilityState === 'hidden') void telemetry.flush();
    else beacon?.arm();
  };
  const onPageHide = () => void telemetry.flush();
  document.addEventListener('visibilitychange', onVisibility);
  window.addEventListener('pagehide', onPageHide);
  beacon?.arm();
  const timer = setInterval(() => void telemetry.flush(), flushEveryMs);
  // Keeps the next batch's headers fresh while the page is shown (a hidden page has just sent its batch).
  const rearm = setInterval(() => {
    if (document.visibilityState === 'visible') beacon?.arm();
  }, BEACON_FRESH_MS / 3);
  stop = () => {
    stopListening();
    document.removeEventListener('visibilitychange', onVisibility);
    window.removeEventListener('pagehide', onPageHide);
    clearInterval(timer);
    clearInterval(rearm);
    stop = undefined;
  };
  return stop;
}
