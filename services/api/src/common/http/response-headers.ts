import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet from 'helmet';

/**
 * The security headers of every API answer: helmet's defaults with a CSP that lets Swagger UI (/api/docs)
 * run its own scripts and inline styles; everything else the API serves is JSON.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = resolveHelmetHeaders({
  contentSecurityPolicy: {
    directives: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:'],
      frameAncestors: ["'none'"],
    },
  },
  crossOriginResourcePolicy: { policy: 'same-site' },
});

/**
 * Runs helmet once, at start-up, against a response that is never sent, and returns the headers it set.
 * helmet validates its options there (a bad directive stops the process at boot, not at a request), and
 * no request pays for building them again. Only for options without per-request values (no CSP nonce
 * functions): those would be frozen at their first value.
 */
function resolveHelmetHeaders(options: Parameters<typeof helmet>[0]): Record<string, string> {
  const response = new ServerResponse(new IncomingMessage(new Socket()));
  let finished = false;
  helmet(options)(response.req, response, (error?: unknown) => {
    if (error !== undefined) throw new Error('helmet refused its options', { cause: error });
    finished = true;
  });
  if (!finished) throw new Error('helmet did not set its headers synchronously');
  return Object.fromEntries(
    Object.entries(response.getHeaders()).map(([name, value]) => [name, String(value)]),
  );
}

/**
 * CORS for the browser origins in `CORS_ORIGINS` (the shell): what every answer says, and a preflight's answer.
 * The rules are fixed at start-up, so the headers are resolved once, as the security headers are; a request pays
 * for one `Set` lookup of its `Origin`. (@fastify/cors, used before, copied its options and read the route's
 * options twice on every request: docs/bench/api.md.)
 */
export const CORS_RULES = {
  methods: ['GET', 'HEAD', 'PUT', 'POST', 'PATCH', 'DELETE'],
  // DPoP: the proof header of sender-constrained tokens (RFC 9449).
  // traceparent and tracestate: the shell continues its trace into the API's (W3C Trace Context).
  allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'DPoP', 'traceparent', 'tracestate'],
  exposedHeaders: ['X-Request-Id', 'Retry-After', 'WWW-Authenticate'],
  maxAgeSeconds: 600,
} as const;

/** Sets the headers of one answer; {@link ResponseHeaders.answerPreflight} answers CORS preflights. */
export interface ResponseHeaders {
  /**
   * Sets the headers every answer carries, errors included: the request id, the security headers and CORS's
   * (`Access-Control-Allow-Origin` for an allowed origin only), and for a request that carries credentials
   * `Cache-Control: no-store` (a person's profile, sessions, sign-in methods or activity must not stay in a
   * browser's cache; a route with a policy of its own, like the registry's ETag, replaces it). On the Fastify
   * reply rather than the Node.js response, so that Fastify writes them together with its own in one
   * `writeHead` (headers set on the raw response make Node.js validate and merge every header again).
   */
  set(request: FastifyRequest, reply: FastifyReply): void;
  /**
   * Answers a CORS preflight (an `OPTIONS` request with `Origin` and `Access-Control-Request-Method`) with 204
   * and the methods and headers the API allows, after {@link set}; returns whether the request was one. The
   * browser reads `Access-Control-Allow-Origin`, which only an allowed origin gets. Any other `OPTIONS` request
   * goes on to the router, which has no such route (404).
   */
  answerPreflight(request: FastifyRequest, reply: FastifyReply): boolean;
}

export function responseHeaders(corsOrigins: readonly string[]): ResponseHeaders {
  const allowedOrigins = new Set(corsOrigins);
  const everyAnswer = {
    ...SECURITY_HEADERS,
    // The answer depends on Origin, also when it carries no Access-Control-Allow-Origin: caches must know.
    vary: 'Origin',
    'access-control-expose-headers': CORS_RULES.exposedHeaders.join(', '),
  };
  const preflight = {
    'access-control-allow-methods': CORS_RULES.methods.join(', '),
    'access-control-allow-headers': CORS_RULES.allowedHeaders.join(', '),
    'access-control-max-age': String(CORS_RULES.maxAgeSeconds),
    'content-length': '0',
  };
  return {
    set(request, reply) {
      void reply.headers(everyAnswer).header('x-request-id', request.id);
      const origin = request.headers.origin;
      if (origin !== undefined && allowedOrigins.has(origin))
        void reply.header('access-control-allow-origin', origin);
      if (request.headers.authorization !== undefined) void reply.header('cache-control', 'no-store');
    },
    answerPreflight(request, reply) {
      const { origin, 'access-control-request-method': method } = request.headers;
      // An empty Origin or method is no preflight either (as @fastify/cors read them before).
      if (request.method !== 'OPTIONS' || !origin || !method) return false;
      void reply.code(204).headers(preflight).send();
      return true;
    },
  };
}
