import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { describe, expect, it, vi } from 'vitest';
import { type ApiTracing, createApiTracing } from './api-tracing';
import { apiTracer } from './load-api-tracing';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
const config = { otlpTracesUrl: 'http://localhost:4318/v1/traces' };

describe('createApiTracing', () => {
  it('gives each request a W3C traceparent naming its own client span, and exports that span when it ends', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createApiTracing(config, exporter);

    const first = tracing.trace({ method: 'GET', url: 'http://localhost:3000/api/me' });
    const second = tracing.trace({ method: 'PUT', url: 'https://api.example.test/api/me/preferences' });
    const [, traceId, spanId] = TRACEPARENT.exec(first.headers.traceparent ?? '') ?? [];
    expect(traceId).toBeDefined();
    expect(TRACEPARENT.exec(second.headers.traceparent ?? '')?.[1]).not.toBe(traceId);
    first.end({ status: 200 });
    second.end({ status: 503 });
    await tracing.flush();

    const [me, preferences] = exporter.getFinishedSpans();
    expect(me?.spanContext()).toMatchObject({ traceId, spanId });
    expect(me).toMatchObject({
      name: 'GET',
      kind: SpanKind.CLIENT,
      parentSpanContext: undefined,
      status: { code: SpanStatusCode.UNSET },
      attributes: {
        'http.request.method': 'GET',
        'url.full': 'http://localhost:3000/api/me',
        'server.address': 'localhost',
        'server.port': 3000,
        'http.response.status_code': 200,
      },
    });
    expect(me?.resource.attributes['service.name']).toBe('atrium-shell');
    expect(preferences).toMatchObject({
      status: { code: SpanStatusCode.ERROR },
      attributes: { 'server.port': 443, 'http.response.status_code': 503, 'error.type': '503' },
    });
  });

  it('marks a request that got no answer as failed, and an aborted one as aborted', async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = createApiTracing(config, exporter);
    tracing.trace({ method: 'GET', url: 'http://localhost:3000/api/me' }).end({ error: new TypeError('x') });
    tracing
      .trace({ method: 'GET', url: 'http://localhost:3000/api/me' })
      .end({ error: new DOMException('gone', 'AbortError') });
    await tracing.flush();
    expect(
      exporter.getFinishedSpans().map((span) => [span.status.code, span.attributes['error.type']]),
    ).toEqual([
      [SpanStatusCode.ERROR, 'TypeError'],
      [SpanStatusCode.ERROR, 'aborted'],
    ]);
  });
});

describe('createApiTracing with an unusable config', () => {
  it.each([
    ['a string', 'on', 'tracing must be an object'],
    ['no URL', {}, 'tracing.otlpTracesUrl must be an absolute http(s) URL'],
    [
      'a relative URL',
      { otlpTracesUrl: '/v1/traces' },
      'tracing.otlpTracesUrl must be an absolute http(s) URL',
    ],
  ])('traces nothing with %s, and says why once', (_case, given, problem) => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const tracing = createApiTracing(given);
    const span = tracing.trace({ method: 'GET', url: 'http://localhost:3000/api/me' });
    span.end({ status: 200 });
    expect(span.headers).toEqual({});
    expect(warn).toHaveBeenCalledExactlyOnceWith(`Atrium: tracing is off: ${problem} (atrium.config.json).`);
    warn.mockRestore();
  });
});

describe('apiTracer (what the shell passes the API client)', () => {
  it('is nothing when the config has no tracing, and then never downloads the tracing chunk', () => {
    const load = vi.fn(() => import('./api-tracing'));
    expect(apiTracer(undefined, load)).toBeUndefined();
    expect(apiTracer(null, load)).toBeUndefined();
    expect(load).not.toHaveBeenCalled();
  });

  it('downloads the chunk once, with the first request, and traces every request with it', async () => {
    const exporter = new InMemorySpanExporter();
    const load = vi.fn(() =>
      Promise.resolve({ createApiTracing: (given: unknown) => createApiTracing(given, exporter) }),
    );
    const trace = apiTracer(config, load)!;
    expect(load).not.toHaveBeenCalled();
    const spans = await Promise.all([
      trace({ method: 'GET', url: 'http://localhost:3000/api/remotes' }),
      trace({ method: 'GET', url: 'http://localhost:3000/api/me' }),
    ]);
    expect(load).toHaveBeenCalledTimes(1);
    for (const span of spans) expect(span.headers.traceparent).toMatch(TRACEPARENT);
  });

  it('tries the download again after one failed (that request went untraced)', async () => {
    const load = vi
      .fn<() => Promise<{ createApiTracing: (config: unknown) => ApiTracing }>>()
      .mockRejectedValueOnce(new Error('chunk failed'))
      .mockImplementation(() => import('./api-tracing'));
    const trace = apiTracer(config, load)!;
    await expect(trace({ method: 'GET', url: 'http://localhost:3000/api/me' })).rejects.toThrow(
      'chunk failed',
    );
    const span = await trace({ method: 'GET', url: 'http://localhost:3000/api/me' });
    expect(span.headers.traceparent).toMatch(TRACEPARENT);
    expect(load).toHaveBeenCalledTimes(2);
  });
});
