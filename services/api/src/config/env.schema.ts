import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { DEV_OVERRIDE_ORIGIN_PATTERN } from '../dev-overrides/dev-override-rules.js';
import type { AppConfig, DatabaseTarget, TracingConfig } from './app-config.js';

/** Asymmetric JWS algorithms the API can verify; `none` and HMAC (shared secrets) are not on it by design. */
export const SUPPORTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
] as const;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;

/** The OTLP transport the API's span exporter speaks (OTLP/HTTP with protobuf bodies, the specification's default). */
const OTLP_PROTOCOL = 'http/protobuf';

/** The OpenTelemetry specification's sampler names the API understands (OTEL_TRACES_SAMPLER). */
export const TRACE_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;

/** What each variable expects, with a value that would work: printed when validation fails. */
const HINTS: Record<string, { expected: string; example: string }> = {
  PORT: { expected: 'an integer between 1 and 65535', example: 'PORT=3000' },
  HOST: { expected: 'an interface address to listen on', example: 'HOST=0.0.0.0' },
  OIDC_ISSUER_URL: {
    expected: 'the http(s) URL of the OpenID Connect issuer, without a trailing slash',
    example: 'OIDC_ISSUER_URL=http://localhost:8080/realms/atrium',
  },
  OIDC_DISCOVERY_URL: {
    expected: "the http(s) URL of the issuer's OpenID configuration (default: derived from OIDC_ISSUER_URL)",
    example: 'OIDC_DISCOVERY_URL=http://keycloak:8080/realms/atrium/.well-known/openid-configuration',
  },
  OIDC_AUDIENCE: {
    expected: 'the audience (aud) access tokens must carry',
    example: 'OIDC_AUDIENCE=atrium-api',
  },
  OIDC_ALGORITHMS: {
    expected: `a comma-separated list of ${SUPPORTED_ALGORITHMS.join(', ')}`,
    example: 'OIDC_ALGORITHMS=RS256',
  },
  OIDC_CLOCK_TOLERANCE_SECONDS: {
    expected: 'an integer between 0 and 60 (leeway for exp and nbf)',
    example: 'OIDC_CLOCK_TOLERANCE_SECONDS=30',
  },
  OIDC_JWKS_CACHE_SECONDS: {
    expected: 'an integer between 10 and 86400 (how often the JWKS is refreshed)',
    example: 'OIDC_JWKS_CACHE_SECONDS=600',
  },
  OIDC_JWKS_REFETCH_INTERVAL_SECONDS: {
    expected: 'an integer between 1 and 3600 (minimum time between refetches for unknown key ids)',
    example: 'OIDC_JWKS_REFETCH_INTERVAL_SECONDS=30',
  },
  OIDC_ALLOWED_CLIENTS: {
    expected: 'a comma-separated list of client ids whose tokens (azp) the API accepts',
    example: 'OIDC_ALLOWED_CLIENTS=atrium-shell,atrium-deployer,atrium-platform',
  },
  OIDC_DPOP_REQUIRED_CLIENTS: {
    expected: 'a comma-separated list of client ids whose tokens must be DPoP-bound (cnf.jkt), or none',
    example: 'OIDC_DPOP_REQUIRED_CLIENTS=atrium-shell',
  },
  PLATFORM_CLIENT_ID: {
    expected: 'the client id of the platform pipeline, which owns platform code such as the admin console',
    example: 'PLATFORM_CLIENT_ID=atrium-platform',
  },
  API_PUBLIC_URL: {
    expected:
      'the http(s) origin browsers call the API at (scheme://host[:port], no path): DPoP proofs name it in htu',
    example: 'API_PUBLIC_URL=http://localhost:3000',
  },
  AUDIT_RETENTION_DAYS: {
    expected: 'how many days audit entries are kept, a whole number (0 keeps them forever)',
    example: 'AUDIT_RETENTION_DAYS=365',
  },
  DPOP_PROOF_MAX_AGE_SECONDS: {
    expected: 'an integer between 5 and 300 (how old a DPoP proof may be, plus OIDC_CLOCK_TOLERANCE_SECONDS)',
    example: 'DPOP_PROOF_MAX_AGE_SECONDS=60',
  },
  METRICS_PORT: {
    expected:
      'an integer between 1 and 65535, not PORT (Prometheus metrics are served there, never on the API port)',
    example: 'METRICS_PORT=9464',
  },
  METRICS_HOST: {
    expected:
      'the interface the metrics port listens on (127.0.0.1 locally; 0.0.0.0 where Prometheus scrapes the pod)',
    example: 'METRICS_HOST=127.0.0.1',
  },
  TELEMETRY_RETENTION_DAYS: {
    expected: 'an integer between 1 and 365 (days the per-minute field health aggregates are kept)',
    example: 'TELEMETRY_RETENTION_DAYS=30',
  },
  TELEMETRY_REPORTS_PER_MINUTE: {
    expected:
      'an integer between 1 and 600 (telemetry batches one person may send per minute to one API instance)',
    example: 'TELEMETRY_REPORTS_PER_MINUTE=12',
  },
  ROLLBACK_MIN_SAMPLES: {
    expected:
      'an integer between 10 and 1000000 (loads the canary and the stable version each need before a rollback)',
    example: 'ROLLBACK_MIN_SAMPLES=50',
  },
  ROLLBACK_MIN_REPORTERS: {
    expected:
      'an integer between 1 and 100000 (distinct people who must have reported each side before a rollback)',
    example: 'ROLLBACK_MIN_REPORTERS=10',
  },
  ROLLBACK_MAX_LOADS_PER_PERSON: {
    expected:
      "an integer between 1 and 1000 (one person's loads of a side that count per ROLLBACK_PERSON_WINDOW_MINUTES)",
    example: 'ROLLBACK_MAX_LOADS_PER_PERSON=1',
  },
  ROLLBACK_PERSON_WINDOW_MINUTES: {
    expected: "an integer between 1 and 1440 (the window one person's loads are capped in)",
    example: 'ROLLBACK_PERSON_WINDOW_MINUTES=60',
  },
  ROLLBACK_MIN_DIFFERENCE: {
    expected: "a number between 0 and 1 (how much higher the canary's failure rate must be than stable's)",
    example: 'ROLLBACK_MIN_DIFFERENCE=0.02',
  },
  ROLLBACK_Z: {
    expected:
      'a number between 1 and 10 (the one-sided two-proportion z statistic a rollback needs; 2.33 = 1 % false alarms)',
    example: 'ROLLBACK_Z=2.33',
  },
  DATABASE_URL: {
    expected: 'postgres://user@host:port/db, postgresql://..., or sqlite:PATH',
    example: 'DATABASE_URL=postgres://postgres@127.0.0.1:5432/atrium',
  },
  CORS_ORIGINS: {
    expected: 'a comma-separated list of http(s) origins (scheme://host[:port], no path)',
    example: 'CORS_ORIGINS=http://localhost:4000',
  },
  ALLOWED_REMOTE_ORIGINS: {
    expected: 'a comma-separated list of http(s) origins where remote manifests may live',
    example: 'ALLOWED_REMOTE_ORIGINS=http://localhost:4100',
  },
  SHELL_CLIENTS: {
    expected:
      'a comma-separated list of the client ids people sign in through (the shell): only their tokens may manage an account (/api/account) or report field telemetry',
    example: 'SHELL_CLIENTS=atrium-shell',
  },
  KEYCLOAK_ADMIN_CLIENT_ID: {
    expected:
      "the API's confidential client at Keycloak (service account: view-events; people grant it their own account token)",
    example: 'KEYCLOAK_ADMIN_CLIENT_ID=atrium-account-admin',
  },
  KEYCLOAK_ADMIN_CLIENT_SECRET: {
    expected: "that client's secret (the realm's ATRIUM_ACCOUNT_ADMIN_SECRET)",
    example: 'KEYCLOAK_ADMIN_CLIENT_SECRET=<the secret of atrium-account-admin>',
  },
  KEYCLOAK_ADMIN_URL: {
    expected:
      "the http(s) URL of the realm's admin REST API, without a trailing slash (default: derived from OIDC_DISCOVERY_URL)",
    example: 'KEYCLOAK_ADMIN_URL=http://keycloak:8080/admin/realms/atrium',
  },
  KEYCLOAK_EVENTS_POLL_SECONDS: {
    expected:
      "an integer between 0 and 3600 (how often Keycloak's events are copied to the audit log; 0 = never)",
    example: 'KEYCLOAK_EVENTS_POLL_SECONDS=15',
  },
  DEV_OVERRIDE_ORIGINS: {
    expected:
      'a comma-separated list of origins (scheme://host[:port], or scheme://host:* for any port) whose dev ' +
      'servers people with the role atrium-developer may load in their own session; unset: overrides are off',
    example: 'DEV_OVERRIDE_ORIGINS=http://localhost:5001,http://localhost:5002',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    expected:
      'the http(s) base URL of an OTLP/HTTP receiver (traces go to <it>/v1/traces); unset: tracing is off',
    example: 'OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318',
  },
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: {
    expected: 'the full http(s) URL spans are sent to (instead of OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces)',
    example: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://localhost:4318/v1/traces',
  },
  OTEL_EXPORTER_OTLP_PROTOCOL: {
    expected: `${OTLP_PROTOCOL} (the only protocol the API exports with; use the receiver's HTTP port, 4318)`,
    example: `OTEL_EXPORTER_OTLP_PROTOCOL=${OTLP_PROTOCOL}`,
  },
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: {
    expected: `${OTLP_PROTOCOL} (the only protocol the API exports with; use the receiver's HTTP port, 4318)`,
    example: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=${OTLP_PROTOCOL}`,
  },
  OTEL_EXPORTER_OTLP_HEADERS: {
    expected: 'comma-separated name=value pairs sent with every export (values URL-encoded)',
    example: 'OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20abc',
  },
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: {
    expected: 'comma-separated name=value pairs sent with every span export (values URL-encoded)',
    example: 'OTEL_EXPORTER_OTLP_TRACES_HEADERS=x-tenant=atrium',
  },
  OTEL_SERVICE_NAME: { expected: 'the service.name of the spans', example: 'OTEL_SERVICE_NAME=atrium-api' },
  OTEL_RESOURCE_ATTRIBUTES: {
    expected: 'comma-separated key=value resource attributes (values URL-encoded)',
    example: 'OTEL_RESOURCE_ATTRIBUTES=deployment.environment.name=staging',
  },
  OTEL_TRACES_SAMPLER: {
    expected: `one of ${TRACE_SAMPLERS.join(', ')}`,
    example: 'OTEL_TRACES_SAMPLER=parentbased_traceidratio',
  },
  OTEL_TRACES_SAMPLER_ARG: {
    expected: 'the share of traces the *traceidratio samplers keep, a number between 0 and 1',
    example: 'OTEL_TRACES_SAMPLER_ARG=0.1',
  },
  OTEL_SDK_DISABLED: {
    expected: 'true or false (true: no tracing even with an endpoint)',
    example: 'OTEL_SDK_DISABLED=false',
  },
  LOG_LEVEL: { expected: `one of ${LOG_LEVELS.join(', ')}`, example: 'LOG_LEVEL=log' },
  DB_MIGRATE_ON_BOOT: { expected: 'true or false', example: 'DB_MIGRATE_ON_BOOT=false' },
};

/**
 * The secrets, each with the well-known value it has in development only (the realm file's development
 * default). Anywhere else a secret has no default: an API deployed without one stops at start-up instead of
 * running with a value everyone can read in the repository.
 */
const DEVELOPMENT_SECRETS = {
  KEYCLOAK_ADMIN_CLIENT_SECRET: 'atrium-account-admin-dev-secret',
} as const;

/**
 * Whether `env` is a development environment, the only one where secrets have defaults: `NODE_ENV=development`
 * (`npm run dev`, the tests' own configurations). Unset counts as not development, so a server started without
 * it fails closed; the API image sets `production`.
 */
export function isDevelopment(env: NodeJS.ProcessEnv): boolean {
  return env['NODE_ENV'] === 'development';
}

/** Variables whose values may be credentials: an error names them but never prints them. */
const UNPRINTED = new Set([
  'KEYCLOAK_ADMIN_CLIENT_SECRET',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
]);

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
 * Schema of the API's environment: every variable has a default except the secrets, which have one only in
 * development (DEVELOPMENT_SECRETS).
 */
export const envSchema = z.object({
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  OIDC_ISSUER_URL: httpUrl
    .refine((value) => !value.endsWith('/'), 'remove the trailing slash')
    .default('http://localhost:8080/realms/atrium'),
  OIDC_DISCOVERY_URL: httpUrl.optional(),
  OIDC_AUDIENCE: z.string().min(1).default('atrium-api'),
  OIDC_ALGORITHMS: algorithmList.default(['RS256']),
  OIDC_CLOCK_TOLERANCE_SECONDS: z.coerce.number().int().min(0).max(60).default(30),
  OIDC_JWKS_CACHE_SECONDS: z.coerce.number().int().min(10).max(86_400).default(600),
  OIDC_JWKS_REFETCH_INTERVAL_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
  OIDC_ALLOWED_CLIENTS: clientList.default(['atrium-shell', 'atrium-deployer', 'atrium-platform']),
  OIDC_DPOP_REQUIRED_CLIENTS: optionalClientList.default(['atrium-shell']),
  PLATFORM_CLIENT_ID: clientList
    .refine((clients) => clients.length === 1, 'exactly one client id')
    .default(['atrium-platform']),
  API_PUBLIC_URL: origin.default(['http://localhost:3000']),
  DPOP_PROOF_MAX_AGE_SECONDS: z.coerce.number().int().min(5).max(300).default(60),
  METRICS_PORT: z.coerce.number().int().min(1).max(65_535).default(9464),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  TELEMETRY_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  TELEMETRY_REPORTS_PER_MINUTE: z.coerce.number().int().min(1).max(600).default(12),
  ROLLBACK_MIN_SAMPLES: z.coerce.number().int().min(10).max(1_000_000).default(50),
  ROLLBACK_MIN_REPORTERS: z.coerce.number().int().min(1).max(100_000).default(10),
  ROLLBACK_MAX_LOADS_PER_PERSON: z.coerce.number().int().min(1).max(1_000).default(1),
  ROLLBACK_PERSON_WINDOW_MINUTES: z.coerce.number().int().min(1).max(1_440).default(60),
  ROLLBACK_MIN_DIFFERENCE: z.coerce.number().min(0).max(1).default(0.02),
  ROLLBACK_Z: z.coerce.number().min(1).max(10).default(2.33),
  DATABASE_URL: databaseUrl.prefault('sqlite:.data/atrium.db'),
  CORS_ORIGINS: originList.default(['http://localhost:4000']),
  ALLOWED_REMOTE_ORIGINS: originList.default(['http://localhost:4100']),
  SHELL_CLIENTS: clientList.default(['atrium-shell']),
  KEYCLOAK_ADMIN_CLIENT_ID: z.string().min(1).default('atrium-account-admin'),
  // A secret: no default here, the realm's development value in development only (DEVELOPMENT_SECRETS).
  KEYCLOAK_ADMIN_CLIENT_SECRET: z.string().min(1),
  KEYCLOAK_ADMIN_URL: httpUrl.refine((value) => !value.endsWith('/'), 'remove the trailing slash').optional(),
  KEYCLOAK_EVENTS_POLL_SECONDS: z.coerce.number().int().min(0).max(3600).default(15),
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
  OTEL_TRACES_SAMPLER: z.enum(TRACE_SAMPLERS).default('parentbased_always_on'),
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  OTEL_SDK_DISABLED: z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .pipe(booleanFlag)
    .default(false),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('log'),
  DB_MIGRATE_ON_BOOT: booleanFlag.default(false),
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(36_500).default(365),
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
  const secretDefaults: Record<string, string> = isDevelopment(env) ? DEVELOPMENT_SECRETS : {};
  const relevant = Object.fromEntries(
    names
      .map((key) => [key, env[key] || secretDefaults[key]] as const)
      .filter(([, value]) => value !== undefined && value !== ''),
  );
  const result = schema.safeParse(relevant);
  if (result.success) return result.data;
  const byVariable = new Map<string, string>();
  for (const issue of result.error.issues) {
    const variable = String(issue.path[0] ?? '(environment)');
    if (byVariable.has(variable)) continue;
    const hint = HINTS[variable];
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
        ? `${variable}=${got} is invalid (${issue.message}): expected ${hint.expected}, e.g. ${hint.example}`
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
