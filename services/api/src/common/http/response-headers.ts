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
 * Sets the headers every answer carries, errors included: the request id and the security headers, and for
 * a request that carries credentials `Cache-Control: no-store` (a person's profile, sessions, sign-in methods
 * or activity must not stay in a browser's cache; a route with a policy of its own, like the registry's ETag,
 * replaces it). On the Fastify reply rather than the Node.js response, so that Fastify writes them together
 * with its own in one `writeHead` (headers set on the raw response make Node.js validate and merge every
 * header again).
 */
export function setResponseHeaders(request: FastifyRequest, reply: FastifyReply): void {
  void reply.headers(SECURITY_HEADERS).header('x-request-id', request.id);
  if (request.headers.authorization !== undefined) void reply.header('cache-control', 'no-store');
}
