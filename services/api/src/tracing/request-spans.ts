import { context, trace } from '@opentelemetry/api';
import { getRPCMetadata, RPCType } from '@opentelemetry/core';
import type { FastifyInstance } from 'fastify';

/** The span attribute that carries the API's request id (the `X-Request-Id` the answer and the log lines name). */
export const REQUEST_ID_ATTRIBUTE = 'atrium.request_id';

/**
 * Names each request's HTTP server span after its route template (`GET /api/remotes/:name`, never the raw URL:
 * a bounded set of names) and puts the request id on it, so a log line leads to its trace and back. Only
 * registered when tracing is on (create-app.ts); the span itself is the http instrumentation's (./tracing.ts).
 */
export function annotateRequestSpans(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, _reply, done) => {
    const active = context.active();
    // The http instrumentation reads the route from here when the span ends: it sets http.route and the name.
    const metadata = getRPCMetadata(active);
    const route = request.routeOptions.url;
    if (metadata?.type === RPCType.HTTP && route !== undefined) metadata.route = route;
    trace.getSpan(active)?.setAttribute(REQUEST_ID_ATTRIBUTE, request.id);
    done();
  });
}
