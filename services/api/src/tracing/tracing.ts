import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { context, diag, DiagLogLevel, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import {
  ATTR_DB_QUERY_TEXT,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
} from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config/index.js';

/*
 * OpenTelemetry tracing of the API, on only when an OTLP endpoint is configured (config/env.schema.ts).
 *
 * What is traced: every request the API serves (the HTTP server span, continuing the caller's W3C
 * `traceparent`, renamed after its route by ./request-spans.ts) and every PostgreSQL query and pool checkout made
 * while serving one (`pg`, which MikroORM's PostgreSQL driver uses through kysely), its SQL text with every literal
 * value replaced by `?`. Not traced: SQLite (no
 * instrumentation exists for better-sqlite3), health probes and the metrics port, and database work outside a
 * request (the pollers and retention jobs), which would otherwise start a trace of its own every few seconds.
 *
 * It patches `http` and `pg` as they are loaded, so main.ts starts it before it imports the application.
 */

/** Paths whose requests are never traced: probes and scrapes, every few seconds, say nothing about a person. */
const UNTRACED_PATHS = /^\/(api\/health(\/|$)|metrics$)/;

export interface Tracing {
  /** Ends tracing: exports the spans still buffered (bounded by the exporter's timeout). */
  shutdown(): Promise<void>;
}

/** Where tracing reports its own trouble (an unreachable receiver): a logger of the application. */
export interface TracingLog {
  warn(message: string): void;
}

/**
 * Starts tracing for the process: context propagation (W3C Trace Context), the instrumentations, and a batch
 * exporter to `config.tracesUrl`. Call once, before the modules it instruments are imported.
 */
export function startTracing(config: TracingConfig, log: TracingLog): Tracing {
  diag.setLogger(throttledDiagLogger(log), DiagLogLevel.WARN);
  const contextManager = new AsyncLocalStorageContextManager();
  context.setGlobalContextManager(contextManager.enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());

  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      ...config.resourceAttributes,
      [ATTR_SERVICE_NAME]: config.serviceName,
      [ATTR_SERVICE_VERSION]: config.resourceAttributes[ATTR_SERVICE_VERSION] ?? apiVersion(),
      // Tells replicas apart (the specification's recommendation: a random UUID per process).
      'service.instance.id': config.resourceAttributes['service.instance.id'] ?? randomUUID(),
    }),
    sampler: samplerFor(config),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({ url: config.tracesUrl, headers: { ...config.headers } }),
      }),
    ],
  });
  trace.setGlobalTracerProvider(provider);

  const disableInstrumentations = registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request: IncomingMessage) => UNTRACED_PATHS.test(request.url ?? ''),
        // The API's own outgoing calls (Keycloak) use fetch, not the http module; nothing to trace there.
        disableOutgoingRequestInstrumentation: true,
      }),
      new PgInstrumentation({
        requireParentSpan: true,
        // MikroORM writes values into the SQL text itself: without this, spans would carry people's ids,
        // names and e-mail addresses to the tracing backend.
        requestHook: (span, { query }) => span.setAttribute(ATTR_DB_QUERY_TEXT, withoutLiterals(query.text)),
      }),
    ],
  });

  return {
    async shutdown() {
      disableInstrumentations();
      await provider.shutdown();
      contextManager.disable();
    },
  };
}

/** The sampler `OTEL_TRACES_SAMPLER` names, as the OpenTelemetry specification defines each. */
export function samplerFor({
  sampler,
  samplerRatio,
}: Pick<TracingConfig, 'sampler' | 'samplerRatio'>): Sampler {
  switch (sampler) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(samplerRatio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(samplerRatio) });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/**
 * SQL text with its literals (strings, E'' strings, numbers) replaced by `?`: the query's shape stays, the values
 * it was run with (ids, names, e-mail addresses) do not leave the process. Identifiers, quoted or not, and `$1`
 * placeholders are kept.
 */
export function withoutLiterals(sql: string): string {
  return (
    sql
      // E'...' strings first (backslash escapes), then standard ones ('' is a quote, a backslash is itself).
      .replace(/(?<![\w$])[eE]'(?:[^'\\]|''|\\.)*'/g, '?')
      .replace(/'(?:[^']|'')*'/g, '?')
      .replace(/(?<![\w$".])-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w"])/g, '?')
  );
}

/** The API's version (its package.json, beside dist/ and src/ alike): the spans' `service.version`. */
function apiVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

/**
 * OpenTelemetry's own warnings and errors (an export that failed: the receiver is down or refuses) as the
 * application's warnings, each distinct message at most once a minute: a receiver that is away must not
 * flood the log every few seconds.
 */
function throttledDiagLogger(log: TracingLog) {
  const lastLogged = new Map<string, number>();
  const write = (message: string, ...args: unknown[]) => {
    const now = Date.now();
    if ((lastLogged.get(message) ?? -Infinity) > now - 60_000) return;
    if (lastLogged.size > 100) lastLogged.clear();
    lastLogged.set(message, now);
    const detail = args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' ');
    log.warn(`OpenTelemetry: ${message}${detail ? ` ${detail}` : ''}`);
  };
  const ignore = () => undefined;
  return { error: write, warn: write, info: ignore, debug: ignore, verbose: ignore };
}
