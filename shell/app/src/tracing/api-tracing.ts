import type { ApiRequestSpan, ApiRequestTarget } from '@atrium/sdk';
import { defaultTextMapSetter, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_SERVICE_NAME,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';

/*
 * Tracing of the shell's API calls: a chunk of its own, downloaded only when the run-time config turns tracing on
 * (./load-api-tracing.ts), so the shell's initial JavaScript does not carry OpenTelemetry.
 *
 * Each request the sdk's API client sends is a client span, the root of a new trace, whose context goes to the
 * API in `traceparent` (W3C Trace Context): the API's server span becomes its child. Spans are sent in batches to
 * the OTLP/HTTP receiver of the config, and when the page is hidden. Every span is kept (no sampling): turning
 * tracing on is a decision to look. A span names the method, the URL without its query, and the status: no
 * token, no body, nothing about the person.
 */

export interface ApiTracing {
  /** Starts the span of one request: `traceparent` to send, and its end. */
  trace(request: ApiRequestTarget): ApiRequestSpan;
  /** Sends the spans that have ended (tests; the page does so by itself on a schedule and when hidden). */
  flush(): Promise<void>;
}

/** The run-time config's `tracing` (config/runtime-config.ts), once checked. */
export interface TracingConfig {
  /** The receiver's traces URL (OTLP/HTTP, protobuf bodies); it must allow the shell's origin (CORS). */
  readonly otlpTracesUrl: string;
}

/** What the shell does when the `tracing` of its config is unusable: no tracing, and a warning that says why. */
const UNTRACED: ApiTracing = {
  trace: () => ({ headers: {}, end: () => undefined }),
  flush: () => Promise.resolve(),
};

/**
 * Tracing of the API calls for the run-time config's `tracing`. A `tracing` that is not
 * `{ "otlpTracesUrl": "<absolute http(s) URL>" }` turns it off with a console warning: tracing is the operator's
 * tool, and a mistake in it must not keep anyone from using the shell.
 */
export function createApiTracing(config: unknown, exporter?: SpanExporter): ApiTracing {
  const problem = tracingConfigProblem(config);
  if (problem !== undefined) {
    console.warn(`Atrium: tracing is off: ${problem} (atrium.config.json).`);
    return UNTRACED;
  }
  const { otlpTracesUrl } = config as TracingConfig;
  return startApiTracing(exporter ?? new OTLPTraceExporter({ url: otlpTracesUrl }));
}

/** Why `config` is not a usable `tracing`, or nothing when it is one. */
export function tracingConfigProblem(config: unknown): string | undefined {
  const url = (config as { otlpTracesUrl?: unknown } | null)?.otlpTracesUrl;
  if (typeof config !== 'object' || Array.isArray(config)) return 'tracing must be an object';
  if (typeof url !== 'string' || !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
    return 'tracing.otlpTracesUrl must be an absolute http(s) URL';
  }
  return undefined;
}

function startApiTracing(exporter: SpanExporter): ApiTracing {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'atrium-shell' }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer('@atrium/shell');
  const propagator = new W3CTraceContextPropagator();

  return {
    trace({ method, url }) {
      const target = new URL(url);
      const span = tracer.startSpan(
        method,
        {
          kind: SpanKind.CLIENT,
          attributes: {
            [ATTR_HTTP_REQUEST_METHOD]: method,
            [ATTR_URL_FULL]: url,
            [ATTR_SERVER_ADDRESS]: target.hostname,
            [ATTR_SERVER_PORT]: Number(target.port || (target.protocol === 'https:' ? 443 : 80)),
          },
        },
        ROOT_CONTEXT,
      );
      const headers: Record<string, string> = {};
      propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
      return {
        headers,
        end(outcome) {
          if ('status' in outcome) {
            span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, outcome.status);
            // The specification's rule for client spans: 4xx and 5xx answers are errors.
            if (outcome.status >= 400) {
              span.setAttribute(ATTR_ERROR_TYPE, String(outcome.status));
              span.setStatus({ code: SpanStatusCode.ERROR });
            }
          } else {
            const name = outcome.error instanceof Error ? outcome.error.name : 'Error';
            span.setAttribute(ATTR_ERROR_TYPE, name === 'AbortError' ? 'aborted' : name);
            span.setStatus({ code: SpanStatusCode.ERROR });
          }
          span.end();
        },
      };
    },
    flush: () => provider.forceFlush(),
  };
}
