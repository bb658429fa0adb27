import { createServer, type Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { FastHistogram, type Series } from './request-durations.js';

/**
 * The API's Prometheus metrics: one registry per process (metrics are the process's, like its memory), served
 * by {@link startMetricsServer} on a port of its own, never on the public API port.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'atrium_api_' });

const requestDuration = new FastHistogram(
  'atrium_http_request_duration_seconds',
  'API request durations by method, route template and status',
  ['method', 'route', 'status'],
  [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
);
metricsRegistry.registerMetric(requestDuration.asRegistered());

const tokenRejections = new Counter({
  name: 'atrium_token_rejections_total',
  help: 'Requests refused for their credentials, by problem code (unauthenticated, invalid_token, ...)',
  labelNames: ['reason'] as const,
  registers: [metricsRegistry],
});

const jwksFetches = new Counter({
  name: 'atrium_jwks_fetches_total',
  help: "Fetches of the identity provider's signing keys, by outcome",
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

const rolloutSteps = new Counter({
  name: 'atrium_rollout_steps_total',
  help: 'Canary steps by kind: started, changed, promoted, aborted, rolled_back (automatic rollbacks)',
  labelNames: ['step'] as const,
  registers: [metricsRegistry],
});

const telemetryReports = new Counter({
  name: 'atrium_telemetry_reports_total',
  help: 'Field telemetry reports from the shell, by outcome (accepted, ignored)',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

/**
 * A database connection pool as its driver reports it, read at each scrape. PostgreSQL (the `pg` pool under
 * MikroORM's Kysely dialect) reports all four; SQLite (better-sqlite3) has one in-process connection and no
 * pool: `open` is 1 while the file is open and `max` 1, while `idle` and `waiting` are left out (queries wait
 * on Kysely's internal lock, which it does not expose).
 */
export interface DatabasePoolState {
  readonly driver: 'postgresql' | 'sqlite';
  /** Connections open now, in use or idle (pg's `totalCount`). */
  readonly open: number;
  /** Open connections nobody holds (pg's `idleCount`). */
  readonly idle?: number;
  /** Queries waiting for a connection because all `max` are in use (pg's `waitingCount`). */
  readonly waiting?: number;
  /** The most connections the pool opens (MikroORM's `pool.max`). */
  readonly max: number;
}

const databasePools = new Set<() => DatabasePoolState>();

/** The sum over the process's pools (one in production; tests may run several applications). */
function poolGauge(name: string, help: string, pick: (state: DatabasePoolState) => number | undefined) {
  return new Gauge({
    name,
    help,
    labelNames: ['driver'] as const,
    registers: [metricsRegistry],
    collect() {
      this.reset();
      for (const read of databasePools) {
        const state = read();
        const value = pick(state);
        if (value !== undefined) this.inc({ driver: state.driver }, value);
      }
    },
  });
}

poolGauge('atrium_db_pool_connections', 'Open database connections, in use or idle', (state) => state.open);
poolGauge(
  'atrium_db_pool_idle_connections',
  'Open database connections no query holds (PostgreSQL only)',
  (state) => state.idle,
);
poolGauge(
  'atrium_db_pool_waiting_requests',
  'Queries waiting for a database connection because all are in use (PostgreSQL only)',
  (state) => state.waiting,
);
poolGauge('atrium_db_pool_max_connections', 'The most connections the pool opens', (state) => state.max);

/** Reports a pool's state at every scrape until the returned function is called (at shutdown). */
export function watchDatabasePool(read: () => DatabasePoolState): () => void {
  databasePools.add(read);
  return () => databasePools.delete(read);
}

/** The problem codes that mean "your credentials were refused" (401). */
const CREDENTIAL_CODES = new Set([
  'unauthenticated',
  'invalid_token',
  'invalid_dpop_proof',
  'dpop_required',
  'invalid_request',
]);

const problemCodes = new WeakMap<FastifyRequest, string>();

/** The problem filter notes the code it answered with; the response hook counts credential refusals. */
export function noteProblem(request: FastifyRequest, code: string): void {
  problemCodes.set(request, code);
}

export function countJwksFetch(outcome: 'ok' | 'failed'): void {
  jwksFetches.inc({ outcome });
}

export function countRolloutStep(step: 'started' | 'changed' | 'promoted' | 'aborted' | 'rolled_back'): void {
  rolloutSteps.inc({ step });
}

export function countTelemetry(accepted: number, ignored: number): void {
  if (accepted) telemetryReports.inc({ outcome: 'accepted' }, accepted);
  if (ignored) telemetryReports.inc({ outcome: 'ignored' }, ignored);
}

/**
 * Times every request by its route template (`/api/remotes/:name`, never the raw URL, so the label set stays
 * bounded; `preflight` for the CORS preflights the header hook answers, `unmatched` for everything else no
 * route matched) and counts credential refusals. Each route gets a response hook of its own that knows its
 * template from when the route was added (Fastify's `request.routeOptions` builds a new object on every read)
 * and resolves each of its series once (docs/bench/api.md). Call it before any route is added: a route added
 * earlier is not timed.
 */
export function instrumentRequests(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const seriesOf = seriesOfRoute(route.url);
    const own: onResponseHookHandler = (request, reply, done) => {
      observeRequest(request, reply, seriesOf);
      done();
    };
    route.onResponse = [...[route.onResponse ?? []].flat(), own];
  });
  // What no route matched: a CORS preflight (answered 204 by the header hook, before any route), or the
  // not-found handler's answer.
  fastify.addHook('onResponse', (request, reply, done) => {
    if (request.is404)
      observeRequest(
        request,
        reply,
        request.method === 'OPTIONS' && reply.statusCode === 204 ? preflight : unmatched,
      );
    done();
  });
}

type SeriesOf = (method: string, status: number) => Series;

/** The duration series of one route template's answers, by method and status, each looked up once. */
function seriesOfRoute(route: string): SeriesOf {
  const byMethod = new Map<string, Map<number, Series>>();
  return (method, status) => {
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map<number, Series>()));
    let series = byStatus.get(status);
    if (!series) byStatus.set(status, (series = requestDuration.seriesOf(method, route, String(status))));
    return series;
  };
}

const unmatched = seriesOfRoute('unmatched');
const preflight = seriesOfRoute('preflight');

/** Counts one answered request (the response hooks, or {@link observeUnroutedRequest}). */
function observeRequest(request: FastifyRequest, reply: FastifyReply, seriesOf: SeriesOf): void {
  const status = reply.statusCode;
  requestDuration.observe(seriesOf(request.method, status), reply.elapsedTime / 1000);
  const code = problemCodes.get(request);
  if (status === 401 && code && CREDENTIAL_CODES.has(code)) tokenRejections.inc({ reason: code });
}

/**
 * For a request Fastify's router refused before any route (a path it cannot decode, an over-long segment):
 * Fastify runs no hooks for those, so once the answer is sent it is timed here and its `request completed`
 * line written, as for every other request.
 */
export function observeUnroutedRequest(request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.once('finish', () => {
    observeRequest(request, reply, unmatched);
    request.log.info({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  });
}

/**
 * Serves `GET /metrics` on its own port and interface (METRICS_PORT, METRICS_HOST): not on the API's port, so
 * neither the ingress nor the shell's origin ever exposes it; locally it listens on loopback only. Resolves
 * with the server once it listens (`port` 0 picks a free one: tests).
 */
export async function startMetricsServer(port: number, host: string): Promise<Server> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n');
      return;
    }
    metricsRegistry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metricsRegistry.contentType }).end(text),
      (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain' }).end(`${String(error)}\n`),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return server;
}
