import { applyDecorators, HttpCode } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode } from '../errors/error-catalogue.js';

/** Name of the bearer security scheme in the OpenAPI document. */
export const BEARER_SCHEME = 'bearer';
/** Name of the DPoP security scheme (RFC 9449: `Authorization: DPoP` with a `DPoP` proof header). */
export const DPOP_SCHEME = 'dpop';

const problemSchema = z
  .object({
    type: z.string().describe('link to the code in docs/errors.md'),
    title: z.string(),
    status: z.int(),
    detail: z.string(),
    instance: z.string(),
    code: z.enum(Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]]),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem' });

/** The success response of a route, described by the zod schema of its document. */
export function ApiDocument(status: number, schema: z.ZodType, description: string): MethodDecorator {
  return applyDecorators(HttpCode(status), ApiResponse({ status, description, standardSchema: schema }));
}

/**
 * The problem+json responses a signed-in route can give, plus the bearer requirement; `codes` adds the
 * route's own domain errors.
 */
export function ApiAuthenticated(...codes: ErrorCode[]): MethodDecorator & ClassDecorator {
  const all: ErrorCode[] = [
    'invalid_request',
    'unauthenticated',
    'invalid_dpop_proof',
    'dpop_required',
    'issuer_unavailable',
    'database_unavailable',
    ...codes,
  ];
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of all) {
    const status = ERROR_CATALOGUE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return applyDecorators(
    // Either scheme: Bearer for unbound (machine) tokens, DPoP for bound ones (people).
    ApiBearerAuth(BEARER_SCHEME),
    ApiSecurity(DPOP_SCHEME),
    ...[...byStatus].map(([status, statusCodes]) =>
      ApiResponse({
        status,
        description: `problem+json, code ${statusCodes.join(' | ')}`,
        content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
      }),
    ),
  );
}

/** zod → JSON Schema 2020-12 (what OpenAPI 3.1 uses), with named schemas moved to components. */
export function toOpenApiSchema(
  schema: unknown,
  io: 'input' | 'output',
): { schema: unknown; components: Record<string, unknown> } | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  const {
    $defs,
    $schema: _dialect,
    ...root
  } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as Record<string, unknown> & { $defs?: Record<string, unknown> };
  return { schema: root, components: $defs ?? {} };
}

/** The problem document's schema, registered once as a component. */
export function problemComponent(): Record<string, unknown> {
  return toOpenApiSchema(problemSchema, 'output')?.schema as Record<string, unknown>;
}
