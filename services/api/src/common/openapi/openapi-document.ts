import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, type SchemaObject, SwaggerModule } from '@nestjs/swagger';
import { z } from 'zod';
import { ERROR_CATALOGUE, type ErrorCode, problemType } from '../errors/error-catalogue.js';
import {
  BEARER_SCHEME,
  DPOP_SCHEME,
  PROBLEM_CODES_EXTENSION,
  PUBLIC_EXTENSION,
} from './api-docs.decorators.js';

const PROBLEM_CODES = Object.keys(ERROR_CATALOGUE) as [ErrorCode, ...ErrorCode[]];

const problemSchema = z
  .object({
    type: z.string().describe('`urn:atrium:problem:<code>`, documented in docs/errors.md under `<code>`'),
    title: z.string().describe("the code's title; branch on `code`, never on the wording"),
    status: z.int().describe('the HTTP status'),
    detail: z.string().describe('what went wrong this time, for a person to read'),
    instance: z.string().describe('the request path'),
    code: z.enum(PROBLEM_CODES).describe('stable machine-readable code (docs/errors.md)'),
    errors: z
      .array(
        z
          .object({ field: z.string(), message: z.string() })
          .meta({ id: 'ProblemFieldError', description: 'one invalid input (validation_failed)' }),
      )
      .optional(),
    conflicts: z
      .array(
        z
          .object({
            package: z.string(),
            required: z.string().describe('the range that is not met (`*`: any version)'),
            requiredBy: z
              .string()
              .describe('whose range it is: `the shell`, or a release as `<remote> <version>`'),
            provided: z.string().nullable().describe('the version the page would give it; null: none at all'),
            providedBy: z.string().describe('who provides that copy'),
          })
          .meta({
            id: 'SharedDependencyConflict',
            description: 'a package the release and what is live cannot share (shared_dependency_conflict)',
          }),
      )
      .optional(),
  })
  .meta({ id: 'Problem', description: 'An RFC 9457 problem document (application/problem+json)' });

/** Codes any route can answer with: an unexpected failure. */
const EVERY_ROUTE: readonly ErrorCode[] = ['internal_error'];
/** Codes a route with a JSON body can answer with, before its own validation. */
const WITH_BODY: readonly ErrorCode[] = [
  'malformed_request',
  'payload_too_large',
  'unsupported_media_type',
  'request_rejected',
];

const COMPONENT_REF = '#/components/schemas/';

const CHALLENGE = 'RFC 6750 / RFC 9449 challenge naming the scheme, the error and its description';
/** The headers a problem comes with (the DomainError of its code sets them), by code. */
const PROBLEM_HEADERS: Partial<Record<ErrorCode, Record<string, string>>> = {
  unauthenticated: { 'WWW-Authenticate': `${CHALLENGE} (Bearer and DPoP, no error)` },
  invalid_token: { 'WWW-Authenticate': CHALLENGE },
  invalid_dpop_proof: { 'WWW-Authenticate': CHALLENGE },
  dpop_required: { 'WWW-Authenticate': CHALLENGE },
  invalid_request: { 'WWW-Authenticate': CHALLENGE },
  insufficient_scope: { 'WWW-Authenticate': CHALLENGE },
  issuer_unavailable: { 'Retry-After': 'seconds until the issuer is asked again' },
  database_unavailable: { 'Retry-After': 'seconds to wait before trying again' },
  shell_manifest_unavailable: { 'Retry-After': 'seconds to wait before trying again' },
};

/**
 * zod → JSON Schema 2020-12 (what OpenAPI 3.1 uses). Named schemas (`.meta({ id })`) go to `components`, and
 * every reference zod writes to them (`#/$defs/<id>`) is pointed there, so no reference dangles.
 */
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
    // Input schemas are request bodies: with `additionalProperties: false` from z.strictObject. Output
    // schemas describe what the API sends; a client must accept fields added later.
    override: (context) => {
      if (io === 'output' && context.jsonSchema.additionalProperties === false) {
        delete context.jsonSchema.additionalProperties;
      }
    },
  }) as Record<string, unknown> & { $defs?: Record<string, unknown> };
  return {
    schema: toComponentRefs(root),
    components: toComponentRefs($defs ?? {}) as Record<string, unknown>,
  };
}

function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#/$defs/')
        ? `${COMPONENT_REF}${inner.slice('#/$defs/'.length)}`
        : toComponentRefs(inner),
    ]),
  );
}

/** The example of a code's problem document, as the API would answer it. */
function problemExample(code: ErrorCode, instance: string) {
  const { status, title, example } = ERROR_CATALOGUE[code];
  return {
    summary: title,
    value: {
      type: problemType(code),
      title,
      status,
      detail: example,
      instance,
      code,
      ...(code === 'validation_failed'
        ? { errors: [{ field: 'theme', message: 'must be one of system, light, dark' }] }
        : {}),
    },
  };
}

type Operation = {
  requestBody?: unknown;
  security?: unknown[];
  [PUBLIC_EXTENSION]?: boolean;
  responses: Record<string, unknown>;
  [PROBLEM_CODES_EXTENSION]?: ErrorCode[];
};

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

/**
 * Builds the API's OpenAPI 3.1 document from the application's routes: the zod schemas of bodies, paths,
 * queries and answers, and one problem+json response per status with an example of each code the route
 * can answer with (`components.examples` holds every code of the catalogue). Served at `/api/docs-json`
 * and written by `npm run contract`; needs the module graph only, not a database or an issuer.
 */
export function describeApi(app: INestApplication): OpenAPIObject {
  const base = new DocumentBuilder()
    .setOpenAPIVersion('3.1.0')
    .setTitle('Atrium API')
    .setDescription(
      'Profiles and the registry of remotes. Every route except /api/health/* needs a Keycloak access token: ' +
        'a DPoP-bound one (people) as Authorization: DPoP with a fresh DPoP proof header per request (RFC 9449), ' +
        'an unbound one (machine clients) as Authorization: Bearer. Errors are RFC 9457 problem+json documents ' +
        'with a stable `code`, listed in docs/errors.md; a path or method the API does not have is answered ' +
        '404 `not_found`.',
    )
    .setVersion('1')
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }, BEARER_SCHEME)
    .addSecurity(DPOP_SCHEME, {
      type: 'http',
      scheme: 'DPoP',
      description:
        'A DPoP-bound access token with a DPoP proof header (htu: API_PUBLIC_URL + path), RFC 9449',
    })
    .build();
  const document = SwaggerModule.createDocument(app, base, {
    standardSchemaConverter: (schema, { schemaType }) => toOpenApiSchema(schema, schemaType),
    // registryList, auditList, meGetMe: unique, and readable as names of generated operations.
    operationIdFactory: (controller, method) =>
      `${controller.charAt(0).toLowerCase()}${controller.slice(1).replace(/Controller$/, '')}${method.charAt(0).toUpperCase()}${method.slice(1)}`,
  });
  const problem = toOpenApiSchema(problemSchema, 'output');
  const examples = Object.fromEntries(PROBLEM_CODES.map((code) => [code, problemExample(code, '/api/…')]));
  document.components = {
    ...document.components,
    schemas: {
      ...document.components?.schemas,
      ...problem?.components,
      Problem: (problem?.components['Problem'] ?? problem?.schema) as SchemaObject,
    },
    examples,
  };
  for (const item of Object.values(document.paths)) {
    for (const method of METHODS) {
      const operation = (item as Partial<Record<(typeof METHODS)[number], Operation>>)[method];
      if (operation) addProblemResponses(operation);
    }
  }
  return document;
}

function addProblemResponses(operation: Operation): void {
  const declared = operation[PROBLEM_CODES_EXTENSION] ?? [];
  delete operation[PROBLEM_CODES_EXTENSION];
  if (operation[PUBLIC_EXTENSION]) {
    // Explicitly without a token (every other route needs one).
    operation.security = [];
    delete operation[PUBLIC_EXTENSION];
  }
  const codes = new Set<ErrorCode>([
    ...declared,
    ...(operation.requestBody === undefined ? [] : WITH_BODY),
    ...EVERY_ROUTE,
  ]);
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const { status } = ERROR_CATALOGUE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, statusCodes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const headers = Object.fromEntries(
      [...new Set(statusCodes.flatMap((code) => Object.keys(PROBLEM_HEADERS[code] ?? {})))].map((name) => [
        name,
        {
          description: [
            ...new Set(statusCodes.map((code) => PROBLEM_HEADERS[code]?.[name]).filter(Boolean)),
          ].join('; '),
          schema: { type: 'string' },
        },
      ]),
    );
    operation.responses[String(status)] = {
      description: `problem+json, code ${statusCodes.join(' | ')}`,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: {
        'application/problem+json': {
          schema: { $ref: `${COMPONENT_REF}Problem` },
          examples: Object.fromEntries(
            statusCodes.map((code) => [code, { $ref: `#/components/examples/${code}` }]),
          ),
        },
      },
    };
  }
}
