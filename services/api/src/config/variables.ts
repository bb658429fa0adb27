// The API's environment variables, each described once: env.schema.ts takes its defaults and validation
// messages from here, and `npm run contract` generates `.env.example` and the table in docs/deploy.md from it
// and from the tables beside the other code that reads variables (infra/contract/config-variables.ts).
// Dependency-free on purpose: tooling imports it as '@atrium/api/config-variables', straight from this source
// (Node strips its types), before anything is built.

/** One environment variable: what it is for, what it takes and its value when unset. */
export interface ConfigVariable {
  readonly name: string;
  /** What it is for, in sentences (backticks for code): its comment in `.env.example` and row in docs/deploy.md. */
  readonly purpose: string;
  /** What a valid value looks like, completing "expected …" (the API prints it when the value is refused). */
  readonly expected?: string;
  /** A value that works (without `NAME=`): shown where the variable has no default. */
  readonly example?: string;
  /** The value used when it is unset or empty, as written in the environment; none: unset means what `purpose` says. */
  readonly default?: string;
  /** A credential: no default outside development, and never printed. */
  readonly secret?: boolean;
  /** A secret's well-known value in development only (never a default anywhere else). */
  readonly developmentValue?: string;
  /** Its value may hold a credential although it is no secret of its own: an error names it, never prints it. */
  readonly unprinted?: boolean;
}

/** Variables read by one part, under one heading of `.env.example` and docs/deploy.md. */
export interface ConfigGroup<Variable extends ConfigVariable = ConfigVariable> {
  /** The heading. */
  readonly title: string;
  /** The code that reads them, a path in the repository. */
  readonly readBy: string;
  /** What the variables share, before them. */
  readonly about?: string;
  readonly variables: readonly Variable[];
}

/** An API variable: every one says what it expects and gives an example, for the messages of a refused value. */
export interface ApiVariable extends ConfigVariable {
  readonly expected: string;
  readonly example: string;
}

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

/** The API's log levels, most severe first (LOG_LEVEL). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'] as const;

/** The OTLP transport the API's span exporter speaks (OTLP/HTTP with protobuf bodies, the specification's default). */
export const OTLP_PROTOCOL = 'http/protobuf';

/** The OpenTelemetry specification's sampler names the API understands (OTEL_TRACES_SAMPLER). */
export const TRACE_SAMPLERS = [
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
  'always_on',
  'always_off',
  'traceidratio',
] as const;

const API = 'services/api';

/** Every variable the API reads, grouped as `.env.example` shows them. */
export const API_VARIABLE_GROUPS: readonly ConfigGroup<ApiVariable>[] = [
  {
    title: 'API',
    readBy: API,
    about:
      'Read once at start-up and validated: a refused value stops the API, which names every bad variable at ' +
      'once with what it expects and an example.',
    variables: [
      {
        name: 'NODE_ENV',
        purpose:
          "`development` gives the API's secrets (KEYCLOAK_ADMIN_CLIENT_SECRET) their well-known development " +
          'values. Anything else, unset included (the API image sets `production`), gives a secret no default: ' +
          'the API does not start without it. `npm start` passes the secret itself; ' +
          '`npm run dev --workspace services/api` sets `development`.',
        expected: 'development, or anything else (production) where every secret must be set',
        example: 'development',
      },
      {
        name: 'PORT',
        purpose: 'Port the API listens on.',
        expected: 'an integer between 1 and 65535',
        example: '3000',
        default: '3000',
      },
      {
        name: 'HOST',
        purpose: 'Interface the API listens on (containers use 0.0.0.0).',
        expected: 'an interface address to listen on',
        example: '0.0.0.0',
        default: '127.0.0.1',
      },
      {
        name: 'DATABASE_URL',
        purpose:
          '`postgres://user:password@host:5432/db` (or `postgresql://`) selects PostgreSQL (SECRET when it holds ' +
          "a password); `sqlite:PATH` selects SQLite, the path relative to the API's working directory.",
        expected: 'postgres://user@host:port/db, postgresql://..., or sqlite:PATH',
        example: 'postgres://postgres@127.0.0.1:5432/atrium',
        default: 'sqlite:.data/atrium.db',
      },
      {
        name: 'DB_MIGRATE_ON_BOOT',
        purpose:
          'Development convenience only: apply pending migrations at boot. Production runs `npm run migrate` first.',
        expected: 'true or false',
        example: 'false',
        default: 'false',
      },
      {
        name: 'LOG_LEVEL',
        purpose: 'The least severe level that is logged.',
        expected: `one of ${LOG_LEVELS.join(', ')}`,
        example: 'log',
        default: 'log',
      },
    ],
  },
  {
    title: 'API: access tokens',
    readBy: API,
    variables: [
      {
        name: 'OIDC_ISSUER_URL',
        purpose: "The issuer exactly as it appears in tokens' `iss` (what the browser sees).",
        expected: 'the http(s) URL of the OpenID Connect issuer, without a trailing slash',
        example: 'http://localhost:8080/realms/atrium',
        default: 'http://localhost:8080/realms/atrium',
      },
      {
        name: 'OIDC_DISCOVERY_URL',
        purpose:
          'Where the API fetches the discovery document when it reaches Keycloak by another name (containers: ' +
          'http://keycloak:8080/realms/atrium/.well-known/openid-configuration). Unset: derived from OIDC_ISSUER_URL.',
        expected:
          "the http(s) URL of the issuer's OpenID configuration (default: derived from OIDC_ISSUER_URL)",
        example: 'http://keycloak:8080/realms/atrium/.well-known/openid-configuration',
      },
      {
        name: 'OIDC_AUDIENCE',
        purpose: 'The audience (`aud`) the API requires in access tokens.',
        expected: 'the audience (aud) access tokens must carry',
        example: 'atrium-api',
        default: 'atrium-api',
      },
      {
        name: 'OIDC_ALGORITHMS',
        purpose: 'Signature algorithms accepted (comma-separated allowlist; `none` and HMAC never are).',
        expected: `a comma-separated list of ${SUPPORTED_ALGORITHMS.join(', ')}`,
        example: 'RS256',
        default: 'RS256',
      },
      {
        name: 'OIDC_CLOCK_TOLERANCE_SECONDS',
        purpose: 'Clock skew allowed on `exp` and `nbf`, in seconds.',
        expected: 'an integer between 0 and 60 (leeway for exp and nbf)',
        example: '30',
        default: '30',
      },
      {
        name: 'OIDC_JWKS_CACHE_SECONDS',
        purpose: 'How long fetched signing keys are kept, in seconds.',
        expected: 'an integer between 10 and 86400 (how often the JWKS is refreshed)',
        example: '600',
        default: '600',
      },
      {
        name: 'OIDC_JWKS_REFETCH_INTERVAL_SECONDS',
        purpose:
          'The least time between two JWKS fetches for unknown key ids, per replica, in seconds: a flood of ' +
          'made-up key ids cannot hammer Keycloak, and a key Keycloak rotated in is accepted within it.',
        expected: 'an integer between 1 and 3600 (minimum time between refetches for unknown key ids)',
        example: '30',
        default: '30',
      },
      {
        name: 'OIDC_ALLOWED_CLIENTS',
        purpose:
          "Clients (the token's `azp`) whose access tokens the API accepts (comma-separated): the shell, and the " +
          'deployers that publish remotes. A token the realm issued to any other client is refused.',
        expected: 'a comma-separated list of client ids whose tokens (azp) the API accepts',
        example: 'atrium-shell,atrium-deployer,atrium-platform',
        default: 'atrium-shell,atrium-deployer,atrium-platform',
      },
      {
        name: 'OIDC_DPOP_REQUIRED_CLIENTS',
        purpose:
          'Clients whose tokens must be DPoP-bound (`cnf.jkt`; comma-separated, or `none`): an unbound token of ' +
          'these is refused even if Keycloak issued it (a realm imported before the client required DPoP).',
        expected: 'a comma-separated list of client ids whose tokens must be DPoP-bound (cnf.jkt), or none',
        example: 'atrium-shell',
        default: 'atrium-shell',
      },
      {
        name: 'API_PUBLIC_URL',
        purpose:
          "The origin browsers call the API at, exactly as in the shell's ATRIUM_API_URL (behind a proxy or " +
          'ingress: the public one, the same on every replica). DPoP proofs must name this origin and the ' +
          'request path (`htu`).',
        expected:
          'the http(s) origin browsers call the API at (scheme://host[:port], no path): DPoP proofs name it in htu',
        example: 'http://localhost:3000',
        default: 'http://localhost:3000',
      },
      {
        name: 'DPOP_PROOF_MAX_AGE_SECONDS',
        purpose: 'How old a DPoP proof may be, in seconds (plus OIDC_CLOCK_TOLERANCE_SECONDS either way).',
        expected:
          'an integer between 5 and 300 (how old a DPoP proof may be, plus OIDC_CLOCK_TOLERANCE_SECONDS)',
        example: '60',
        default: '60',
      },
      {
        name: 'SHELL_CLIENTS',
        purpose:
          'The clients (`azp`) people sign in through, the shell: only their tokens may manage their own account ' +
          "through /api/account or report field telemetry (POST /api/telemetry); a machine client's token is " +
          "refused there (403), since its `sub` is a service account and no person's browser made its reports.",
        expected:
          'a comma-separated list of the client ids people sign in through (the shell): only their tokens may ' +
          'manage an account (/api/account) or report field telemetry',
        example: 'atrium-shell',
        default: 'atrium-shell',
      },
      {
        name: 'PLATFORM_CLIENT_ID',
        purpose:
          "The platform pipeline's client: it owns platform code (the admin console), and only it may give such " +
          "a remote another owner (an administrator's browser session may not).",
        expected:
          'the client id of the platform pipeline, which owns platform code such as the admin console',
        example: 'atrium-platform',
        default: 'atrium-platform',
      },
    ],
  },
  {
    title: 'API: browsers and remotes',
    readBy: API,
    variables: [
      {
        name: 'CORS_ORIGINS',
        purpose: 'Browser origins allowed to call the API (comma-separated): the shell.',
        expected: 'a comma-separated list of http(s) origins (scheme://host[:port], no path)',
        example: 'http://localhost:4000',
        default: 'http://localhost:4000',
      },
      {
        name: 'ALLOWED_REMOTE_ORIGINS',
        purpose:
          "Origins remote manifests may be registered from (comma-separated): the release store or CDN. The shell's " +
          'ATRIUM_REMOTE_ORIGINS keeps in step.',
        expected: 'a comma-separated list of http(s) origins where remote manifests may live',
        example: 'http://localhost:4100',
        default: 'http://localhost:4100',
      },
      {
        name: 'SHELL_MANIFEST_URL',
        purpose:
          "The deployed shell's `mf-manifest.json`, which says the versions of the singletons it provides (react, " +
          'react-dom, `@atrium/sdk`): read when a release is published, activated or started as a canary, which is ' +
          'refused when its shared dependencies do not match (docs/adr/0013-shared-dependency-gate.md). When it ' +
          'cannot be read, the change is refused (503). Unset: releases are checked against each other only. ' +
          '`npm start` sets it.',
        expected:
          "an http(s) URL of the shell's mf-manifest.json; unset: releases are not checked against the shell",
        example: 'http://shell:4000/mf-manifest.json',
      },
      {
        name: 'DEV_OVERRIDE_ORIGINS',
        purpose:
          'Dev overrides: origins (`scheme://host:port`, or `scheme://host:*` for any port) whose dev servers ' +
          "people with the realm role atrium-developer may load instead of a remote's release, in their own " +
          "browser tab. Unset (the default, and production's): off. The API's own origin, Keycloak's, " +
          'CORS_ORIGINS and ALLOWED_REMOTE_ORIGINS are refused whatever this matches. `npm start` sets each ' +
          "remote's dev server (`http://localhost:<atrium.devPort>`) for the API and the shell (atrium.config.json " +
          '`devOverrides.allowedOrigins`, which also opens its Content-Security-Policy to them), never ' +
          '`http://localhost:*` (docs/deploy.md#dev-overrides).',
        expected:
          'a comma-separated list of origins (scheme://host[:port], or scheme://host:* for any port) whose dev ' +
          'servers people with the role atrium-developer may load in their own session; unset: overrides are off',
        example: 'http://localhost:5001,http://localhost:5002',
      },
    ],
  },
  {
    title: "API: Keycloak's admin API",
    readBy: API,
    about:
      "The API's own service account at Keycloak, for people's own accounts (/api/account) and to copy " +
      "Keycloak's events into the audit log: realm client atrium-account-admin, whose service account holds " +
      "view-events of realm-management and no right over any user; people grant it their own token for Keycloak's " +
      'account API (docs/security.md).',
    variables: [
      {
        name: 'KEYCLOAK_ADMIN_CLIENT_ID',
        purpose:
          "The API's own client at Keycloak (realm client atrium-account-admin): its service account reads " +
          "Keycloak's events (view-events, no right over any user), and people grant it their own token for " +
          "Keycloak's account API (docs/security.md).",
        expected:
          "the API's confidential client at Keycloak (service account: view-events; people grant it their own account token)",
        example: 'atrium-account-admin',
        default: 'atrium-account-admin',
      },
      {
        name: 'KEYCLOAK_ADMIN_CLIENT_SECRET',
        purpose:
          "That client's secret: the realm's ATRIUM_ACCOUNT_ADMIN_SECRET. It also seals the account tokens people " +
          'grant the API.',
        expected: "that client's secret (the realm's ATRIUM_ACCOUNT_ADMIN_SECRET)",
        example: '<the secret of atrium-account-admin>',
        secret: true,
        developmentValue: 'atrium-account-admin-dev-secret',
      },
      {
        name: 'KEYCLOAK_ADMIN_URL',
        purpose:
          "The realm's admin REST API. Unset: derived from OIDC_DISCOVERY_URL (`.../admin/realms/<realm>`).",
        expected:
          "the http(s) URL of the realm's admin REST API, without a trailing slash (default: derived from OIDC_DISCOVERY_URL)",
        example: 'http://keycloak:8080/admin/realms/atrium',
      },
      {
        name: 'KEYCLOAK_EVENTS_POLL_SECONDS',
        purpose:
          "How often Keycloak's login and admin events are copied into the audit log, in seconds (0 = never).",
        expected:
          "an integer between 0 and 3600 (how often Keycloak's events are copied to the audit log; 0 = never)",
        example: '15',
        default: '15',
      },
    ],
  },
  {
    title: 'API: audit log and metrics',
    readBy: API,
    variables: [
      {
        name: 'AUDIT_RETENTION_DAYS',
        purpose:
          'Days audit entries are kept (0: forever). Older ones are deleted at start-up and hourly, 1,000 rows ' +
          'per statement, oldest first.',
        expected: 'how many days audit entries are kept, a whole number (0 keeps them forever)',
        example: '365',
        default: '365',
      },
      {
        name: 'METRICS_PORT',
        purpose: "Port of the Prometheus metrics (GET /metrics): a port of their own, never the API's.",
        expected:
          'an integer between 1 and 65535, not PORT (Prometheus metrics are served there, never on the API port)',
        example: '9464',
        default: '9464',
      },
      {
        name: 'METRICS_HOST',
        purpose:
          'Interface the metrics port listens on: loopback locally; where Prometheus scrapes the pod, 0.0.0.0 ' +
          'with a network policy that admits only the monitoring namespace (infra/k8s).',
        expected:
          'the interface the metrics port listens on (127.0.0.1 locally; 0.0.0.0 where Prometheus scrapes the pod)',
        example: '127.0.0.1',
        default: '127.0.0.1',
      },
    ],
  },
  {
    title: 'API: field telemetry and automatic rollback',
    readBy: API,
    about:
      'Field telemetry from the shell (per remote version and minute, no personal data); each batch holds one ' +
      'report per remote version, each no more than one page can produce ' +
      '(docs/security.md#field-telemetry-and-automatic-rollback). A canary is rolled back automatically when ' +
      'both it and the stable version have at least ROLLBACK_MIN_SAMPLES loads counted since it started, ' +
      "reported by at least ROLLBACK_MIN_REPORTERS distinct people, its failure rate exceeds stable's by more " +
      'than ROLLBACK_MIN_DIFFERENCE and the one-sided two-proportion z statistic exceeds ROLLBACK_Z. A ' +
      "person's loads count for at most ROLLBACK_MAX_LOADS_PER_PERSON per side and " +
      'ROLLBACK_PERSON_WINDOW_MINUTES, at their own failure rate.',
    variables: [
      {
        name: 'TELEMETRY_RETENTION_DAYS',
        purpose: 'Days the per-minute field health aggregates are kept.',
        expected: 'an integer between 1 and 365 (days the per-minute field health aggregates are kept)',
        example: '30',
        default: '30',
      },
      {
        name: 'TELEMETRY_REPORTS_PER_MINUTE',
        purpose:
          'Telemetry batches one person may send per minute, to all replicas together (more are answered 429).',
        expected:
          'an integer between 1 and 600 (telemetry batches one person may send per minute, to all replicas together)',
        example: '12',
        default: '12',
      },
      {
        name: 'ROLLBACK_MIN_SAMPLES',
        purpose: 'Loads the canary and the stable version each need before a rollback.',
        expected:
          'an integer between 10 and 1000000 (loads the canary and the stable version each need before a rollback)',
        example: '50',
        default: '50',
      },
      {
        name: 'ROLLBACK_MIN_REPORTERS',
        purpose: 'Distinct people who must have reported each side before a rollback.',
        expected:
          'an integer between 1 and 100000 (distinct people who must have reported each side before a rollback)',
        example: '10',
        default: '10',
      },
      {
        name: 'ROLLBACK_MAX_LOADS_PER_PERSON',
        purpose:
          "One person's loads of a side that count per ROLLBACK_PERSON_WINDOW_MINUTES (1: each person is one " +
          'voice per window, so no account, or person reloading all day, outweighs the others).',
        expected:
          "an integer between 1 and 1000 (one person's loads of a side that count per ROLLBACK_PERSON_WINDOW_MINUTES)",
        example: '1',
        default: '1',
      },
      {
        name: 'ROLLBACK_PERSON_WINDOW_MINUTES',
        purpose:
          "The window one person's loads are capped in, in minutes, counted from the canary's start: with the " +
          'default, a day, one account that reports every hour is still one voice a day.',
        expected:
          "an integer between 1 and 10080 (the window one person's loads are capped in: up to a week)",
        example: '1440',
        default: '1440',
      },
      {
        name: 'ROLLBACK_MIN_DIFFERENCE',
        purpose: "How much higher the canary's failure rate must be than stable's.",
        expected:
          "a number between 0 and 1 (how much higher the canary's failure rate must be than stable's)",
        example: '0.02',
        default: '0.02',
      },
      {
        name: 'ROLLBACK_Z',
        purpose:
          'The one-sided two-proportion z statistic a rollback needs (2.33: about 1 % false alarms per check).',
        expected:
          'a number between 1 and 10 (the one-sided two-proportion z statistic a rollback needs; 2.33 = 1 % false alarms)',
        example: '2.33',
        default: '2.33',
      },
    ],
  },
  {
    title: 'API: tracing (OpenTelemetry)',
    readBy: API,
    about:
      "The OpenTelemetry specification's variables (docs/deploy.md#tracing): off unless an OTLP endpoint is " +
      "set. Then every request (continuing the caller's W3C traceparent) and the PostgreSQL queries made for it " +
      'are sent as spans over OTLP/HTTP with protobuf bodies (the only protocol; grpc is refused), and log lines ' +
      'carry traceId and spanId beside requestId. SQLite queries are not traced (no instrumentation exists for ' +
      'it). The exporter itself also reads OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT, _COMPRESSION (gzip), ' +
      '_CERTIFICATE, _CLIENT_CERTIFICATE and _CLIENT_KEY (files) as the specification defines them.',
    variables: [
      {
        name: 'OTEL_EXPORTER_OTLP_ENDPOINT',
        purpose:
          "The receiver's base URL: spans go to it with /v1/traces appended. Unset, and no " +
          'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: no tracing.',
        expected:
          'the http(s) base URL of an OTLP/HTTP receiver (traces go to <it>/v1/traces); unset: tracing is off',
        example: 'http://localhost:4318',
      },
      {
        name: 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
        purpose:
          'The full traces URL, used as given (instead of OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces).',
        expected: 'the full http(s) URL spans are sent to (instead of OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces)',
        example: 'http://localhost:4318/v1/traces',
      },
      {
        name: 'OTEL_EXPORTER_OTLP_PROTOCOL',
        purpose: `The exporter's protocol: ${OTLP_PROTOCOL} only (point it at the receiver's HTTP port, 4318).`,
        expected: `${OTLP_PROTOCOL} (the only protocol the API exports with; use the receiver's HTTP port, 4318)`,
        example: OTLP_PROTOCOL,
      },
      {
        name: 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
        purpose: 'The same, for traces only.',
        expected: `${OTLP_PROTOCOL} (the only protocol the API exports with; use the receiver's HTTP port, 4318)`,
        example: OTLP_PROTOCOL,
      },
      {
        name: 'OTEL_EXPORTER_OTLP_HEADERS',
        purpose:
          'Headers sent with every export: name=value pairs, comma-separated, values URL-encoded (SECRET when ' +
          'they hold a credential; never printed, not even in a configuration error).',
        expected: 'comma-separated name=value pairs sent with every export (values URL-encoded)',
        example: 'authorization=Bearer%20abc',
        unprinted: true,
      },
      {
        name: 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
        purpose:
          'Headers for span exports: added to OTEL_EXPORTER_OTLP_HEADERS, overriding those of the same name ' +
          '(never printed either).',
        expected: 'comma-separated name=value pairs sent with every span export (values URL-encoded)',
        example: 'x-tenant=atrium',
        unprinted: true,
      },
      {
        name: 'OTEL_SERVICE_NAME',
        purpose:
          "The spans' service.name (unset: a service.name in OTEL_RESOURCE_ATTRIBUTES, else atrium-api); " +
          "service.version is the API's package version, service.instance.id a UUID per process.",
        expected: 'the service.name of the spans',
        example: 'atrium-api',
      },
      {
        name: 'OTEL_RESOURCE_ATTRIBUTES',
        purpose:
          "The spans' other resource attributes: key=value pairs, comma-separated, values URL-encoded.",
        expected: 'comma-separated key=value resource attributes (values URL-encoded)',
        example: 'deployment.environment.name=staging',
      },
      {
        name: 'OTEL_TRACES_SAMPLER',
        purpose:
          "Which traces are kept: parentbased_always_on (all, and whatever the caller decided: the shell's " +
          'decision is followed), always_on, always_off, traceidratio, parentbased_always_off, ' +
          'parentbased_traceidratio with OTEL_TRACES_SAMPLER_ARG the share. Any client can set the flag a caller ' +
          'decides with: where the volume must be bounded whatever callers send, use traceidratio.',
        expected: `one of ${TRACE_SAMPLERS.join(', ')}`,
        example: 'parentbased_traceidratio',
        default: 'parentbased_always_on',
      },
      {
        name: 'OTEL_TRACES_SAMPLER_ARG',
        purpose: 'The share of traces the traceidratio samplers keep.',
        expected: 'the share of traces the *traceidratio samplers keep, a number between 0 and 1',
        example: '0.1',
        default: '1',
      },
      {
        name: 'OTEL_SDK_DISABLED',
        purpose: 'true: no tracing even with an endpoint.',
        expected: 'true or false (true: no tracing even with an endpoint)',
        example: 'false',
        default: 'false',
      },
    ],
  },
];
