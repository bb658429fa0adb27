import type { LoggerService } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { DestinationStream } from 'pino';
import { AppModule } from './app.module.js';
import { describeApi } from './common/openapi/openapi-document.js';
import { ProblemFilter } from './common/errors/problem.filter.js';
import { responseHeaders } from './common/http/response-headers.js';
import { createRootLogger, PinoNestLogger, requestIdOf, withRequestId } from './common/logging/logger.js';
import type { AppConfig } from './config/index.js';
import { instrumentRequests, observeUnroutedRequest } from './metrics/index.js';

// Profile, preference and publish bodies are tiny; a small limit turns abuse into a cheap 413.
const BODY_LIMIT_BYTES = 64 * 1024;
// Requests in flight get this long to finish on shutdown before connections are cut.
const SHUTDOWN_GRACE_MS = 10_000;

export interface CreateAppOptions {
  /** Where log lines go (default stdout); tests pass a stream to read them. */
  logDestination?: DestinationStream;
  /** `false` silences Nest's own lines (tests); request logs still follow LOG_LEVEL. */
  logger?: false | LoggerService;
  /**
   * Builds the module graph without creating a provider (Nest's preview mode): no database connection, no
   * issuer discovery. Enough for the OpenAPI document (`npm run contract`), useless for requests.
   */
  preview?: boolean;
}

/**
 * Builds the API application (not yet listening) from a validated configuration: Fastify with pino JSON
 * logs and request ids, security headers, CORS for the configured origins only, the `/api` prefix, the
 * OpenAPI document at `/api/docs-json` and its browser at `/api/docs`. `main.ts`, the tests and the bench
 * all start it from here.
 */
export async function createApp(
  config: AppConfig,
  options: CreateAppOptions = {},
): Promise<NestFastifyApplication> {
  const rootLogger = createRootLogger(config.logLevel, options.logDestination, {
    traceIds: config.tracing !== undefined,
  });
  const headers = responseHeaders(config.corsOrigins);
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    loggerInstance: rootLogger,
    genReqId: requestIdOf,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // No Nest middleware (the MikroORM request context is an interceptor): without @fastify/middie, no
    // request pays for its path matching. Nest middleware added later needs this switched back off.
    skipMiddie: true,
    // Errors Fastify's router raises before a route, its hooks and Nest's filter are reached get the same
    // headers and problem+json answer as everything else.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      observeUnroutedRequest(request, reply);
      headers.set(request, reply);
      new ProblemFilter().respond(error, request, reply);
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: options.logger ?? new PinoNestLogger(rootLogger.child({ component: 'nest' })),
    abortOnError: false,
    preview: options.preview ?? false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  // Request id, security and CORS headers, on the Fastify reply in one synchronous hook. Nest's
  // `useSecurityHeaders()` and `enableCors()` write theirs to the Node.js response instead, which made every
  // answer's headers go through Node's validation and merging a second time (docs/bench/api.md).
  fastify.addHook('onRequest', (request, reply, done) => {
    headers.set(request, reply);
    if (headers.answerPreflight(request, reply)) return;
    // Everything after this hook runs with the request id in scope: Nest's and the services' log lines carry it.
    withRequestId(request.id, done);
  });
  instrumentRequests(fastify);
  // Loaded only with tracing on: without it, no request pays for the hook.
  if (config.tracing) (await import('./tracing/index.js')).annotateRequestSpans(fastify);
  app.setGlobalPrefix('api');
  setUpOpenApi(app);
  app.enableShutdownHooks();
  handOverInFlightRequests(fastify);
  return app;
}

/**
 * Shutdown (Nest's close() ends in Fastify's): requests in flight finish, and each ends its keep-alive
 * connection with its answer, since an idle client connection would otherwise hold close() open. A request
 * that never ends gets SHUTDOWN_GRACE_MS. Done with Fastify's close hooks: the application object is a
 * Nest proxy whose set trap drops assignments, so wrapping `app.close` silently does nothing.
 */
function handOverInFlightRequests(fastify: FastifyInstance): void {
  let shuttingDown = false;
  let timer: NodeJS.Timeout | undefined;
  fastify.addHook('onSend', (_request, reply, _payload, done) => {
    if (shuttingDown) void reply.header('connection', 'close');
    done();
  });
  fastify.addHook('preClose', (done) => {
    shuttingDown = true;
    timer = setTimeout(() => fastify.server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    timer.unref();
    done();
  });
  fastify.addHook('onClose', (_instance, done) => {
    clearTimeout(timer);
    done();
  });
}

function setUpOpenApi(app: NestFastifyApplication): void {
  SwaggerModule.setup('api/docs', app, describeApi(app), {
    jsonDocumentUrl: 'api/docs-json',
    raw: ['json'],
  });
}
