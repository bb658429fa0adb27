import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { DEV_OVERRIDE_ORIGIN_PATTERN } from '../dev-overrides/dev-override-rules.js';
import type { AppConfig, DatabaseTarget, TracingConfig } from './app-config.js';
import {
  API_VARIABLE_GROUPS,
  type ApiVariable,
  LOG_LEVELS,
  OTLP_PROTOCOL,
  SUPPORTED_ALGORITHMS,
  TRACE_SAMPLERS,
} from './variables.js';

export { SUPPORTED_ALGORITHMS, TRACE_SAMPLERS } from './variables.js';

/**
 * Each variable's row of the table in variables.ts: its default, and what it expects with an example, printed
 * when its value is refused.
 */
const VARIABLES: ReadonlyMap<string, ApiVariable> = new Map(
  API_VARIABLE_GROUPS.flatMap((group) => group.variables).map((variable) => [variable.name, variable]),
);

/**
 * The secrets, each with the well-known value it has in development only (the realm file's development
 * default). Anywhere else a secret has no default: an API deployed without one stops at start-up instead of
 * running with a value everyone can read in the repository.
 */
const DEVELOPMENT_SECRETS: Readonly<Record<string, string>> = Object.fromEntries(
  [...VARIABLES.values()].flatMap((variable) =>
    variable.secret && variable.developmentValue !== undefined
      ? [[variable.name, variable.developmentValue]]
      : [],
  ),
);

/**
 * Whether `env` is a development environment, the only one where secrets have defaults: `NODE_ENV=development`
 * (`npm run dev`, the tests' own configurations). Unset counts as not development, so a server started without
 * it fails closed; the API image sets `production`.
 */
export function isDevelopment(env: NodeJS.ProcessEnv): boolean {
  return env['NODE_ENV'] === 'development';
}

/** Variables whose values may be credentials: an error names them but never prints them. */
const UNPRINTED: ReadonlySet<string> = new Set(
  [...VARIABLES.values()].filter((variable) => variable.secret || variable.unprinted).map(({ name }) => name),
);

const httpUrl = z.url({ protocol: /^https?$/ });

const originList = z.string().transform((value, ctx) => {
  const origins = value
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin.length > 0);
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      ctx.addIssue({ code: 'custom', message: `"${origin}" is not an origin` });
      return z.NEVER;
    }
  }
  return origins;
});

const devOverrideOriginList = z.string().transform((value, ctx) => {
  const patterns = value
    .split(',')
    .map((pattern) => pattern.trim())
    .filter((pattern) => pattern.length > 0);
  const bad = patterns.filter((pattern) => !DEV_OVERRIDE_ORIGIN_PATTERN.test(pattern));
  if (bad.length > 0) {
    ctx.addIssue({ code: 'custom', message: `not an origin pattern: ${bad.join(', ')}` });
    return z.NEVER;
  }
  return patterns;
});

const origin = originList.refine((origins) => origins.length === 1, 'exactly one origin');

/**
 * Client ids, comma-separated: trimmed, without empty entries or repeats; `none` for an empty list (an empty
 * variable counts as unset and gets the default).
 */
const optionalClientList = z.string().transform((value) =>
  value.trim() === 'none'
    ? []
    : [
        ...new Set(
          value
            .split(',')
            .map((client) => client.trim())
            .filter((client) => client.length > 0),
        ),
      ],
);

const clientList = optionalClientList.refine((clients) => clients.length > 0, 'empty list');

const algorithmList = z.string().transform((value, ctx) => {
  const algorithms = [
    ...new Set(
      value
        .split(',')
        .map((algorithm) => algorithm.trim())
        .filter((algorithm) => algorithm.length > 0),
    ),
  ];
  const supported: readonly string[] = SUPPORTED_ALGORITHMS;
  const unsupported = algorithms.filter((algorithm) => !supported.includes(algorithm));
  if (algorithms.length === 0 || unsupported.length > 0) {
    ctx.addIssue({
      code: 'custom',
      message: unsupported.length ? `unsupported: ${unsupported.join(', ')}` : 'empty list',
    });
    return z.NEVER;
  }
  return algorithms;
});

const databaseUrl = z.string().transform((value, ctx): DatabaseTarget => {
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      const url = new URL(value);
      if (url.pathname.length > 1) return { driver: 'postgresql', url: value };
    } catch {
      // fall through to the issue below
    }
    ctx.addIssue({ code: 'custom', message: 'a PostgreSQL URL needs a host and a database name' });
    return z.NEVER;
  }
  if (value.startsWith('sqlite:') && value.length > 'sqlite:'.length) {
    return { driver: 'sqlite', path: value.slice('sqlite:'.length) };
  }
  ctx.addIssue({ code: 'custom', message: 'unsupported scheme' });
  return z.NEVER;
});

/**
 * `key=value` pairs, comma-separated, values URL-encoded (the OpenTelemetry specification's format for
 * OTEL_RESOURCE_ATTRIBUTES and OTEL_EXPORTER_OTLP_HEADERS).
 */
const keyValueList = z.string().transform((value, ctx) => {
  const pairs: Record<string, string> = {};
  for (const [index, entry] of value.split(',').entries()) {
    if (entry.trim() === '') continue;
    const separator = entry.indexOf('=');
    const key = entry.slice(0, Math.max(separator, 0)).trim();
    let decoded: string | undefined;
    try {
      decoded = decodeURIComponent(entry.slice(separator + 1).trim());
    } catch {
      decoded = undefined;
    }
    if (separator < 1 || key === '' || decoded === undefined) {
      // Named by its place, never by its text: an exporter header may be a credential.
      ctx.addIssue({ code: 'custom', message: `entry ${index + 1} is not a key=value pair` });
      return z.NEVER;
    }
    pairs[key] = decoded;
  }
  return pairs;
});

const otlpProtocol = z.literal(OTLP_PROTOCOL, {
  error: `only ${OTLP_PROTOCOL} is supported (not grpc or http/json)`,
});

const booleanFlag = z
  .enum(['true', 'false', '1', '0'])
  .transform((value) => value === 'true' || value === '1');

/**
 * Schema of the API's environment. The defaults are the table's (variables.ts): an unset variable gets its row's
 * default before parsing, so a default is checked like any other value. The secrets have one only in development
 * (DEVELOPMENT_SECRETS); what has no row default is optional or means "none" when unset.
 */
export const envSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535),
  HOST: z.string().min(1),
  OIDC_ISSUER_URL: httpUrl.refine((value) => !value.endsWith('/'), 'remove the trailing slash'),
  OIDC_DISCOVERY_URL: httpUrl.optional(),
  OIDC_AUDIENCE: z.string().min(1),
  OIDC_ALGORITHMS: algorithmList,
  OIDC_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(60),
  OIDC_JWKS_CACHE_SECONDS: z.coerce.number().int().min(10).max(86_400),
  OIDC_JWKS_REFETCH_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600),
  OIDC_ALLOWED_CLIENTS: clientList,
  OIDC_DPOP_REQUIRED_CLIENTS: optionalClientList,
  PLATFORM_CLIENT_ID: clientList.refine((clients) => clients.length === 1, 'exactly one client id'),
  API_PUBLIC_URL: origin,
  DPOP_PROOF_MAX_AGE_SECONDS: z.coerce.number().int().min(5).max(300),
  METRICS_PORT: z.coerce.number().int().min(1).max(65_535),
  METRICS_HOST: z.string().min(1),
  TELEMETRY_RETENTION_DAYS: z.coerce.number().int().min(1).max(365),
  TELEMETRY_REPORTS_PER_MINUTE: z.coerce.number().int().min(1).max(600),
  ROLLBACK_MIN_SAMPLES: z.coerce.number().int().min(10).max(1_000_000),
  ROLLBACK_MIN_REPORTERS: z.coerce.number().int().min(1).max(100_000),
  ROLLBACK_MAX_LOADS_PER_PERSON: z.coerce.number().int().min(1).max(1_000),
  ROLLBACK_PERSON_WINDOW_MINUTES: z.coerce.number().int().min(1).max(10_080),
  ROLLBACK_MIN_DIFFERENCE: z.coerce.number().min(0).max(1),
  ROLLBACK_Z: z.coerce.number().min(1).max(10),
  DATABASE_URL: databaseUrl,
  CORS_ORIGINS: originList,
  ALLOWED_REMOTE_ORIGINS: originList,
  SHELL_CLIENTS: clientList,
  SHELL_MANIFEST_URL: httpUrl.optional(),
  KEYCLOAK_ADMIN_CLIENT_ID: z.string().min(1),
  // A secret: no default here, the realm's development value in development only (DEVELOPMENT_SECRETS).
  KEYCLOAK_ADMIN_CLIENT_SECRET: z.string().min(1),
  KEYCLOAK_ADMIN_URL: httpUrl.refine((value) => !value.endsWith('/'), 'remove the trailing slash').optional(),
  KEYCLOAK_EVENTS_POLL_SECONDS: z.coerce.number().int().min(0).max(3600),
  // Off unless configured: production never loads a dev server's code unless an operator says so.
  DEV_OVERRIDE_ORIGINS: devOverrideOriginList.default([]),
  // OpenTelemetry tracing: the specification's variables; off unless an endpoint is set.
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl.optional(),
  OTEL_EXPORTER_OTLP_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: otlpProtocol.optional(),
  OTEL_EXPORTER_OTLP_HEADERS: keyValueList.default({}),
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: keyValueList.default({}),
  OTEL_SERVICE_NAME: z.string().trim().min(1).optional(),
  OTEL_RESOURCE_ATTRIBUTES: keyValueList.default({}),
  OTEL_TRACES_SAMPLER: z.enum(TRACE_SAMPLERS),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1),
  OTEL_SDK_DISABLED: z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .pipe(booleanFlag),
  LOG_LEVEL: z.enum(LOG_LEVELS),
  DB_MIGRATE_ON_BOOT: booleanFlag,
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500),
});

/** Thrown by {@link loadConfig} with one line per bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the variables `names` of `env` with `schema`. Empty strings count as unset so that `FOO=` in a .env
 * file falls back to the default; in development, an unset secret gets its development value.
 */
function parseVariables<T>(schema: z.ZodType<T>, names: readonly string[], env: NodeJS.ProcessEnv): T {
  const secretDefaults: Readonly<Record<string, string>> = isDevelopment(env) ? DEVELOPMENT_SECRETS : {};
  const relevant = Object.fromEntries(
    names
      .map((key) => [key, env[key] || secretDefaults[key] || VARIABLES.get(key)?.default] as const)
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  // A secret's development value is in the repository for anyone to read: outside development it is no secret.
  const published = isDevelopment(env)
    ? []
    : names.filter((name) => name in DEVELOPMENT_SECRETS && env[name] === DEVELOPMENT_SECRETS[name]);
  const result = schema.safeParse(relevant);
  if (result.success && published.length === 0) return result.data;
  const byVariable = new Map<string, string>(
    published.map((name) => [
      name,
      `${name} has the realm's well-known development value, which anyone can read in the repository: set a ` +
        `secret of your own (NODE_ENV=${env['NODE_ENV'] || '(unset)'}; only NODE_ENV=development accepts it)`,
    ]),
  );
  const issues = result.success ? [] : result.error.issues;
  for (const issue of issues) {
    const variable = String(issue.path[0] ?? '(environment)');
    if (byVariable.has(variable)) continue;
    const hint = VARIABLES.get(variable);
    if (variable in DEVELOPMENT_SECRETS && relevant[variable] === undefined) {
      byVariable.set(
        variable,
        `${variable} is not set: expected ${hint?.expected ?? 'a secret'}. A secret has no default outside ` +
          `development (NODE_ENV=${env['NODE_ENV'] || '(unset)'}; only NODE_ENV=development has one)`,
      );
      continue;
    }
    // Exporter headers may hold credentials: a bad one is named, its value is never printed.
    const got = UNPRINTED.has(variable) ? '(value not shown)' : JSON.stringify(relevant[variable] ?? null);
    byVariable.set(
      variable,
      hint
        ? `${variable}=${got} is invalid (${issue.message}): expected ${hint.expected}, e.g. ${variable}=${hint.example}`
        : `${variable}: ${issue.message}`,
    );
  }
  throw new ConfigError([...byVariable.values()]);
}

/** A SQLite path resolved against `cwd` (`:memory:` stays as it is); PostgreSQL as given. */
function resolveDatabase(target: DatabaseTarget, cwd: string): DatabaseTarget {
  return target.driver === 'sqlite' && target.path !== ':memory:'
    ? { driver: 'sqlite', path: resolve(cwd, target.path) }
    : target;
}

/**
 * Reads and validates the API's configuration from `env` (normally `process.env`).
 * Empty strings count as unset so that `FOO=` in a .env file falls back to the default.
 *
 * @throws ConfigError naming every missing or bad variable, with what it expects and an example.
 */
export function loadConfig(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): AppConfig {
  const parsed = parseVariables(envSchema, Object.keys(envSchema.shape), env);
  const database = resolveDatabase(parsed.DATABASE_URL, cwd);
  const oidcDiscoveryUrl =
    parsed.OIDC_DISCOVERY_URL ?? `${parsed.OIDC_ISSUER_URL}/.well-known/openid-configuration`;
  // Keycloak serves a realm at <base>/realms/<name> and its admin API at <base>/admin/realms/<name>.
  const realmUrl = oidcDiscoveryUrl.replace(/\/\.well-known\/openid-configuration$/, '');
  return {
    port: parsed.PORT,
    host: parsed.HOST,
    oidcIssuerUrl: parsed.OIDC_ISSUER_URL,
    oidcDiscoveryUrl,
    oidcAudience: parsed.OIDC_AUDIENCE,
    oidcAlgorithms: parsed.OIDC_ALGORITHMS,
    clockToleranceSeconds: parsed.OIDC_CLOCK_TOLERANCE_SECONDS,
    jwksCacheSeconds: parsed.OIDC_JWKS_CACHE_SECONDS,
    jwksRefetchIntervalSeconds: parsed.OIDC_JWKS_REFETCH_INTERVAL_SECONDS,
    allowedClients: parsed.OIDC_ALLOWED_CLIENTS,
    dpopRequiredClients: parsed.OIDC_DPOP_REQUIRED_CLIENTS,
    platformClientId: parsed.PLATFORM_CLIENT_ID[0] as string,
    apiPublicUrl: parsed.API_PUBLIC_URL[0] as string,
    dpopProofMaxAgeSeconds: parsed.DPOP_PROOF_MAX_AGE_SECONDS,
    auditRetentionDays: parsed.AUDIT_RETENTION_DAYS,
    metrics: { port: parsed.METRICS_PORT, host: parsed.METRICS_HOST },
    telemetry: {
      retentionDays: parsed.TELEMETRY_RETENTION_DAYS,
      reportsPerMinute: parsed.TELEMETRY_REPORTS_PER_MINUTE,
    },
    rollback: {
      minSamples: parsed.ROLLBACK_MIN_SAMPLES,
      minReporters: parsed.ROLLBACK_MIN_REPORTERS,
      minDifference: parsed.ROLLBACK_MIN_DIFFERENCE,
      z: parsed.ROLLBACK_Z,
      maxLoadsPerPerson: parsed.ROLLBACK_MAX_LOADS_PER_PERSON,
      personWindowMinutes: parsed.ROLLBACK_PERSON_WINDOW_MINUTES,
    },
    database,
    corsOrigins: parsed.CORS_ORIGINS,
    allowedRemoteOrigins: parsed.ALLOWED_REMOTE_ORIGINS,
    shellClients: parsed.SHELL_CLIENTS,
    shellManifestUrl: parsed.SHELL_MANIFEST_URL ?? null,
    keycloakAdmin: {
      clientId: parsed.KEYCLOAK_ADMIN_CLIENT_ID,
      clientSecret: parsed.KEYCLOAK_ADMIN_CLIENT_SECRET,
      tokenUrl: `${realmUrl}/protocol/openid-connect/token`,
      adminUrl: parsed.KEYCLOAK_ADMIN_URL ?? realmUrl.replace(/\/realms\/([^/]+)$/, '/admin/realms/$1'),
      accountUrl: `${realmUrl}/account`,
      authorizationUrl: `${parsed.OIDC_ISSUER_URL}/protocol/openid-connect/auth`,
      eventsPollSeconds: parsed.KEYCLOAK_EVENTS_POLL_SECONDS,
    },
    devOverrideOrigins: parsed.DEV_OVERRIDE_ORIGINS,
    tracing: tracingConfig(parsed),
    logLevel: parsed.LOG_LEVEL,
    migrateOnBoot: parsed.DB_MIGRATE_ON_BOOT,
  };
}

/**
 * Tracing, when an OTLP endpoint is configured and the SDK is not disabled: the traces URL is the signal's own
 * endpoint as given, else the base endpoint with `/v1/traces` appended (as the specification says).
 */
function tracingConfig(parsed: z.infer<typeof envSchema>): TracingConfig | undefined {
  const base = parsed.OTEL_EXPORTER_OTLP_ENDPOINT;
  const tracesUrl =
    parsed.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined);
  if (tracesUrl === undefined || parsed.OTEL_SDK_DISABLED) return undefined;
  const { 'service.name': _ignored, ...resourceAttributes } = parsed.OTEL_RESOURCE_ATTRIBUTES;
  return {
    tracesUrl,
    headers: { ...parsed.OTEL_EXPORTER_OTLP_HEADERS, ...parsed.OTEL_EXPORTER_OTLP_TRACES_HEADERS },
    // OTEL_SERVICE_NAME wins over a service.name in OTEL_RESOURCE_ATTRIBUTES (the specification's order).
    serviceName: parsed.OTEL_SERVICE_NAME ?? parsed.OTEL_RESOURCE_ATTRIBUTES['service.name'] ?? 'atrium-api',
    resourceAttributes,
    sampler: parsed.OTEL_TRACES_SAMPLER,
    samplerRatio: parsed.OTEL_TRACES_SAMPLER_ARG,
  };
}

/**
 * Only the database of the API's configuration, for the migration step, which needs nothing else (in particular
 * none of the API's secrets).
 *
 * @throws ConfigError when DATABASE_URL is bad.
 */
export function loadDatabaseTarget(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): DatabaseTarget {
  const schema = envSchema.pick({ DATABASE_URL: true });
  return resolveDatabase(parseVariables(schema, ['DATABASE_URL'], env).DATABASE_URL, cwd);
}

/** Creates the folder a SQLite file lives in; separate from validation so that tests stay side-effect free. */
export function ensureDatabaseDirectory(config: Pick<AppConfig, 'database'>): void {
  if (config.database.driver === 'sqlite' && config.database.path !== ':memory:') {
    mkdirSync(dirname(config.database.path), { recursive: true });
  }
}
