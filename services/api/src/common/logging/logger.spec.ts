import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogLines } from '@atrium/test-support/logs';
import { createRootLogger, PinoNestLogger, withRequestId } from './logger.js';

describe('PinoNestLogger', () => {
  it('names the request being handled on every line, errors included, and none outside a request', async () => {
    const { lines, destination } = captureLogLines();
    const logger = new PinoNestLogger(createRootLogger('log', destination));
    await new Promise<void>((resolve) =>
      withRequestId('req-42', () => {
        // Later in the same request, after awaiting something.
        setTimeout(() => {
          logger.warn('slow', 'TelemetryService');
          logger.error('Unhandled error', 'Error: boom\n    at x', 'ProblemFilter');
          resolve();
        }, 1);
      }),
    );
    logger.log('started', 'NestApplication');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((line) => [line['msg'], line['requestId'], line['context']])).toEqual([
      ['slow', 'req-42', 'TelemetryService'],
      ['Unhandled error', 'req-42', 'ProblemFilter'],
      ['started', undefined, 'NestApplication'],
    ]);
    expect(lines[1]!['stack']).toContain('boom');
  });
});

describe('trace ids on log lines (tracing on)', () => {
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => context.setGlobalContextManager(contextManager.enable()));
  afterAll(() => {
    contextManager.disable();
    context.disable();
  });
  // A recording span of a real SDK; nothing is exported.
  const tracer = new TracerProvider().getTracer('logger-spec');

  it('names the active span beside the request id, later in the request too, and nothing outside a span', async () => {
    const { lines, destination } = captureLogLines();
    const logger = new PinoNestLogger(createRootLogger('log', destination, { traceIds: true }));
    const span = tracer.startSpan('GET /api/me');
    await new Promise<void>((resolve) =>
      context.with(trace.setSpan(context.active(), span), () =>
        withRequestId('req-7', () => {
          setTimeout(() => {
            logger.error('Unhandled error', 'Error: boom\n    at x', 'ProblemFilter');
            resolve();
          }, 1);
        }),
      ),
    );
    span.end();
    logger.log('idle', 'Bootstrap');
    await new Promise((resolve) => setImmediate(resolve));
    const { traceId, spanId } = span.spanContext();
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(lines.map((line) => [line['msg'], line['requestId'], line['traceId'], line['spanId']])).toEqual([
      ['Unhandled error', 'req-7', traceId, spanId],
      ['idle', undefined, undefined, undefined],
    ]);
  });

  it('leaves them out when tracing is off, even inside a span', () => {
    const { lines, destination } = captureLogLines();
    const logger = new PinoNestLogger(createRootLogger('log', destination));
    const span = tracer.startSpan('GET /api/me');
    context.with(trace.setSpan(context.active(), span), () => logger.log('handled', 'MeController'));
    span.end();
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty('traceId');
  });
});
