import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiBearerAuth, ApiExtension, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import type { z } from 'zod';
import type { ErrorCode } from '../errors/error-catalogue.js';

/** Name of the bearer security scheme in the OpenAPI document. */
export const BEARER_SCHEME = 'bearer';
/** Name of the DPoP security scheme (RFC 9449: `Authorization: DPoP` with a `DPoP` proof header). */
export const DPOP_SCHEME = 'dpop';
/**
 * Operation extension carrying the problem codes a route declares; `describeApi` turns it into the
 * problem+json responses (with one example per code) and removes it.
 */
export const PROBLEM_CODES_EXTENSION = 'x-atrium-problem-codes';

/** Operation extension marking a route that needs no token (`describeApi` writes `security: []`). */
export const PUBLIC_EXTENSION = 'x-atrium-public';

/** The codes every signed-in route can answer with, before its own. */
const AUTHENTICATED_CODES: readonly ErrorCode[] = [
  'invalid_request',
  'unauthenticated',
  'invalid_dpop_proof',
  'dpop_required',
  'issuer_unavailable',
  'database_unavailable',
];

/** The success response of a route, described by the zod schema of its document. */
export function ApiDocument(status: number, schema: z.ZodType, description: string): MethodDecorator {
  return applyDecorators(HttpCode(status), ApiResponse({ status, description, standardSchema: schema }));
}

/** The problem codes a route answers with (see {@link PROBLEM_CODES_EXTENSION}). */
export function ApiProblems(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return ApiExtension(PROBLEM_CODES_EXTENSION, codes);
}

/** Documents a route that needs no token (its controller or handler is `@Public()`). */
export function ApiPublic(): MethodDecorator & ClassDecorator {
  return ApiExtension(PUBLIC_EXTENSION, true);
}

/**
 * The problem+json responses a signed-in route can give, plus the bearer and DPoP requirement; `codes` adds
 * the route's own domain errors.
 */
export function ApiAuthenticated(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  return applyDecorators(
    // Either scheme: Bearer for unbound (machine) tokens, DPoP for bound ones (people).
    ApiBearerAuth(BEARER_SCHEME),
    ApiSecurity(DPOP_SCHEME),
    ApiProblems(...AUTHENTICATED_CODES, ...codes),
  );
}
