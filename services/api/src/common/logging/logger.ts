import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { LoggerService, LogLevel } from '@nestjs/common';
import { context, isSpanContextValid, trace } from '@opentelemetry/api';
import { type DestinationStream, type Logger, pino } from 'pino';

const PINO_LEVELS: Record<LogLevel, string> = {
  fatal: 'fatal',
  error: 'error',
  warn: 'warn',
  log: 'info',
  debug: 'debug',
  verbose: 'trace',
};

// Anything else a client sends as a request id is replaced: it ends up in every log line of the request.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Paths pino removes from every line. Fastify's request serializer logs no headers, but anything that
 * logs a request or its headers must never print a token or a cookie.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'headers.cookie',
  'authorization',
  // A DPoP proof is single-use, but until its jti is seen by every replica it could be replayed.
  'req.headers.dpop',
  'headers.dpop',
];

/**
 * The one pino logger of the process: JSON lines on stdout (or `destination` in tests). With `traceIds` (tracing
 * is on) every line written while a span is active names its `traceId` and `spanId` beside the `requestId`.
 */
export function createRootLogger(
  level: LogLevel,
  destination?: DestinationStream,
  options: { traceIds?: boolean } = {},
): Logger {
  return pino(
    {
      level: PINO_LEVELS[level],
      ...(options.traceIds ? { mixin: () => currentTraceIds() ?? {} } : {}),
      base: { service: 'atrium-api' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: {
        req: (request: { method?: string; url?: string; id?: string }) => ({
          method: request.method,
          url: redactQuery(request.url ?? ''),
          id: request.id,
        }),
      },
    },
    destination,
  );
}

const requestIds = new AsyncLocalStorage<string>();

/**
 * Runs `next` (the rest of a request's handling) with its request id in scope, so every line the
 * application logs while handling it, errors included, names the request ({@link PinoNestLogger}).
 */
export function withRequestId(requestId: string, next: () => void): void {
  requestIds.run(requestId, next);
}

/** The id of the request being handled, if any. */
export function currentRequestId(): string | undefined {
  return requestIds.getStore();
}

/** The trace and span of the code running now; nothing when no span is active (or tracing is off). */
export function currentTraceIds(): { traceId: string; spanId: string } | undefined {
  const spanContext = trace.getSpan(context.active())?.spanContext();
  if (spanContext === undefined || !isSpanContextValid(spanContext)) return undefined;
  return { traceId: spanContext.traceId, spanId: spanContext.spanId };
}

/** The request id: the client's `X-Request-Id` when it is a plain token, else a fresh UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const header = request.headers['x-request-id'];
  return typeof header === 'string' && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Query values that may carry credentials are blanked before the URL reaches a log line. */
export function redactQuery(url: string): string {
  return url.replace(/([?&][^=&]*(?:token|code|secret|password|key)[^=&]*=)[^&]*/gi, '$1[redacted]');
}

/** Nest's logger interface on top of pino, so framework and application lines share one format. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, ...rest: unknown[]): void {
    this.write('info', message, rest);
  }
  error(message: unknown, ...rest: unknown[]): void {
    this.write('error', message, rest);
  }
  warn(message: unknown, ...rest: unknown[]): void {
    this.write('warn', message, rest);
  }
  debug(message: unknown, ...rest: unknown[]): void {
    this.write('debug', message, rest);
  }
  verbose(message: unknown, ...rest: unknown[]): void {
    this.write('trace', message, rest);
  }
  fatal(message: unknown, ...rest: unknown[]): void {
    this.write('fatal', message, rest);
  }

  private write(
    level: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace',
    message: unknown,
    rest: unknown[],
  ) {
    // Nest passes the context (class name) last, and for errors the stack before it.
    const context = typeof rest.at(-1) === 'string' ? (rest.at(-1) as string) : undefined;
    const stack = level === 'error' && typeof rest[0] === 'string' && rest.length > 1 ? rest[0] : undefined;
    const requestId = currentRequestId();
    this.logger[level](
      { context, ...(requestId ? { requestId } : {}), ...(stack ? { stack } : {}) },
      String(message),
    );
  }
}
