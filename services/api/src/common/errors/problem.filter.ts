import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from './database-availability.js';
import { isDataException } from './database-data-errors.js';
import { DatabaseUnavailableError, DomainError } from './domain-errors.js';
import { ERROR_CATALOGUE, type ErrorCode, problemType } from './error-catalogue.js';
import { noteProblem } from '../../metrics/index.js';

/** An RFC 9457 problem document as this API emits it. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ErrorCode;
  [extension: string]: unknown;
}

interface Problem {
  code: ErrorCode;
  status: number;
  detail: string;
  headers: Readonly<Record<string, string>>;
  extensions: Readonly<Record<string, unknown>>;
}

/** Fastify's own request errors (body parser, body limit) carry a 4xx `statusCode` and an `FST_` code. */
function clientStatusOf(exception: unknown): number | undefined {
  if (exception instanceof HttpException) return exception.getStatus();
  const statusCode = (exception as { statusCode?: unknown } | null)?.statusCode;
  return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500 ? statusCode : undefined;
}

function codeForClientStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'malformed_request';
    case 404:
      return 'not_found';
    case 413:
      return 'payload_too_large';
    case 415:
      return 'unsupported_media_type';
    default:
      return 'request_rejected';
  }
}

const MAX_DETAIL_LENGTH = 200;

/**
 * The message of a 4xx error that Nest (HttpException) or Fastify (`FST_` code) raised, written for the
 * client; shortened because Fastify's may quote the request (a URL, a header). Errors of other origin
 * with a 4xx status may carry anything, so they get no message through.
 */
function clientMessageOf(exception: unknown): string | undefined {
  if (!(exception instanceof Error) || exception.message.length === 0) return undefined;
  const code = (exception as { code?: unknown }).code;
  const fromHttpLayer =
    exception instanceof HttpException || (typeof code === 'string' && code.startsWith('FST_'));
  if (!fromHttpLayer) return undefined;
  const characters = [...exception.message];
  return characters.length <= MAX_DETAIL_LENGTH
    ? exception.message
    : `${characters.slice(0, MAX_DETAIL_LENGTH - 1).join('')}…`;
}

const CLIENT_DETAILS: Partial<Record<ErrorCode, string>> = {
  malformed_request: 'The request could not be parsed (for example, the body is not valid JSON).',
  not_found: 'There is no such resource.',
  payload_too_large: 'The request body is larger than this API accepts.',
  unsupported_media_type: 'The request body must be application/json.',
};

/**
 * The one place where errors become HTTP responses: domain errors keep their code, Nest's and Fastify's
 * own 4xx errors get a catalogue code, database outages become 503, values the database refuses 400,
 * anything else a 500 that says
 * nothing about internals (the details go to the log).
 */
@Catch()
export class ProblemFilter implements ExceptionFilter {
  private readonly logger = new Logger('ProblemFilter');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    this.respond(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }

  /**
   * Answers `exception` as problem+json. Also called by Fastify for the errors its router raises before Nest
   * sees the request (a bad percent-encoding, an over-long path segment): see `createApp`.
   */
  respond(exception: unknown, request: FastifyRequest, reply: FastifyReply): void {
    const problem = this.toProblem(exception, request);
    noteProblem(request, problem.code);
    const body: ProblemDocument = {
      type: problemType(problem.code),
      title: ERROR_CATALOGUE[problem.code].title,
      status: problem.status,
      detail: problem.detail,
      instance: (request.url ?? '/').split('?')[0] ?? '/',
      code: problem.code,
      ...problem.extensions,
    };
    void reply
      .status(problem.status)
      .headers({ ...problem.headers, 'content-type': 'application/problem+json; charset=utf-8' })
      .send(JSON.stringify(body));
  }

  private toProblem(exception: unknown, request: FastifyRequest): Problem {
    let error = exception;
    if (!(error instanceof DomainError) && isDatabaseUnavailable(error)) {
      this.logger.warn(
        `Database unavailable during ${request.method} ${request.routeOptions?.url ?? ''}: ${(error as Error).message}`,
      );
      error = new DatabaseUnavailableError({ cause: error });
    }
    if (error instanceof DomainError) {
      return {
        code: error.code,
        status: ERROR_CATALOGUE[error.code].status,
        detail: error.message,
        headers: error.headers,
        extensions: error.extensions,
      };
    }
    if (isDataException(error)) {
      // Logged as a warning: a client error, but also a hint that a validation rule is missing.
      this.logger.warn(
        `Database refused a value during ${request.method} ${request.routeOptions?.url ?? ''}: ${(error as Error).message}`,
      );
      return {
        code: 'request_rejected',
        status: 400,
        detail:
          'A value in the request cannot be stored: it is too long, out of range or not valid text (for example, it contains a NUL character).',
        headers: {},
        extensions: {},
      };
    }
    const clientStatus = clientStatusOf(error);
    if (clientStatus !== undefined && clientStatus < 500) {
      const code = codeForClientStatus(clientStatus);
      return {
        code,
        status: clientStatus,
        detail: CLIENT_DETAILS[code] ?? clientMessageOf(error) ?? 'The request was rejected.',
        headers: {},
        extensions: {},
      };
    }
    this.logger.error(
      `Unhandled error during ${request.method} ${request.routeOptions?.url ?? ''}`,
      error instanceof Error ? error.stack : String(error),
    );
    return {
      code: 'internal_error',
      status: 500,
      detail: 'The server failed to handle this request. It has been logged.',
      headers: {},
      extensions: {},
    };
  }
}
