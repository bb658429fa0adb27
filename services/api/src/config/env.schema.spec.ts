import { describe, expect, it } from 'vitest';
import { ConfigError, envSchema, loadConfig, loadDatabaseTarget } from './env.schema.js';

/** Where secrets have their development values (`npm run dev`, the tests' own configurations). */
const DEVELOPMENT = { NODE_ENV: 'development' } as const;

/** The problems loadConfig names for `env`, in development unless `env` says otherwise. */
function problemsOf(env: Record<string, string | undefined>): readonly string[] {
  try {
    loadConfig({ ...DEVELOPMENT, ...env }, '/srv/atrium');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('has development defaults for every variable', () => {
    expect(loadConfig(DEVELOPMENT, '/srv/atrium')).toEqual({
      port: 3000,
      host: '127.0.0.1',
      oidcIssuerUrl: 'http://localhost:8080/realms/atrium',
      oidcDiscoveryUrl: 'http://localhost:8080/realms/atrium/.well-known/openid-configuration',
      oidcAudience: 'atrium-api',
      oidcAlgorithms: ['RS256'],
      clockToleranceSeconds: 30,
      jwksCacheSeconds: 600,
      jwksRefetchIntervalSeconds: 30,
      allowedClients: ['atrium-shell', 'atrium-deployer', 'atrium-platform'],
      dpopRequiredClients: ['atrium-shell'],
      platformClientId: 'atrium-platform',
      apiPublicUrl: 'http://localhost:3000',
      dpopProofMaxAgeSeconds: 60,
      auditRetentionDays: 365,
      metrics: { port: 9464, host: '127.0.0.1' },
      telemetry: { retentionDays: 30, reportsPerMinute: 12 },
      rollback: {
        minSamples: 50,
        minReporters: 10,
        minDifference: 0.02,
        z: 2.33,
        maxLoadsPerPerson: 1,
        personWindowMinutes: 1440,
      },
      database: { driver: 'sqlite', path: '/srv/atrium/.data/atrium.db' },
      corsOrigins: ['http://localhost:4000'],
      allowedRemoteOrigins: ['http://localhost:4100'],
      shellClients: ['atrium-shell'],
      shellManifestUrl: null,
      keycloakAdmin: {
        clientId: 'atrium-account-admin',
        clientSecret: 'atrium-account-admin-dev-secret',
        tokenUrl: 'http://localhost:8080/realms/atrium/protocol/openid-connect/token',
        adminUrl: 'http://localhost:8080/admin/realms/atrium',
        accountUrl: 'http://localhost:8080/realms/atrium/account',
        authorizationUrl: 'http://localhost:8080/realms/atrium/protocol/openid-connect/auth',
        eventsPollSeconds: 15,
      },
      // Off unless configured.
      devOverrideOrigins: [],
      tracing: undefined,
      logLevel: 'log',
      migrateOnBoot: false,
    });
  });

  describe('secrets outside development', () => {
    // What a deployment sets besides the secrets (docker-compose.yml, infra/k8s): all of it has defaults anyway.
    const deployed = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://atrium:pw@db:5432/atrium',
      OIDC_ISSUER_URL: 'https://id.example.test/realms/atrium',
    };
    const secrets = Object.keys(envSchema.shape).filter((name) => /SECRET|PASSWORD/.test(name));

    it('an operator who starts the API image (NODE_ENV=production) without its Keycloak secret gets a refusal naming it', () => {
      const problems = problemsOf(deployed);
      expect(problems).toEqual([
        expect.stringMatching(
          /^KEYCLOAK_ADMIN_CLIENT_SECRET is not set: expected .*no default outside development \(NODE_ENV=production;/,
        ),
      ]);
      // The realm's well-known development secret is neither used nor suggested.
      expect(problems.join('\n')).not.toContain('dev-secret');
    });

    it('has no default for any secret: with nothing set, exactly the secrets are refused', () => {
      expect(secrets).toContain('KEYCLOAK_ADMIN_CLIENT_SECRET');
      const refused = problemsOf({ NODE_ENV: 'production' }).map((problem) => problem.split(' ')[0]);
      expect(refused.sort()).toEqual([...secrets].sort());
    });

    it('takes only NODE_ENV=development for development: unset, test, a typo or an empty secret fail closed', () => {
      for (const nodeEnv of [undefined, '', 'test', 'Development', 'develop', 'staging']) {
        expect(problemsOf({ ...deployed, NODE_ENV: nodeEnv }), String(nodeEnv)).toEqual([
          expect.stringMatching(/^KEYCLOAK_ADMIN_CLIENT_SECRET is not set/),
        ]);
      }
      expect(problemsOf({ ...deployed, KEYCLOAK_ADMIN_CLIENT_SECRET: '' })).toEqual([
        expect.stringMatching(/^KEYCLOAK_ADMIN_CLIENT_SECRET is not set/),
      ]);
    });

    it("an operator who copies the realm's development secret into a production API gets a refusal naming it", () => {
      const problems = problemsOf({
        ...deployed,
        KEYCLOAK_ADMIN_CLIENT_SECRET: 'atrium-account-admin-dev-secret',
      });
      expect(problems).toEqual([
        expect.stringMatching(/^KEYCLOAK_ADMIN_CLIENT_SECRET has the realm's well-known development value/),
      ]);
      // On a developer's machine it is the value the realm was imported with.
      expect(
        loadConfig({ ...DEVELOPMENT, KEYCLOAK_ADMIN_CLIENT_SECRET: 'atrium-account-admin-dev-secret' })
          .keycloakAdmin.clientSecret,
      ).toBe('atrium-account-admin-dev-secret');
    });

    it('uses the secret it is given, in production and in development alike', () => {
      const given = { KEYCLOAK_ADMIN_CLIENT_SECRET: 'a-secret-of-our-own' };
      expect(loadConfig({ ...deployed, ...given }).keycloakAdmin.clientSecret).toBe('a-secret-of-our-own');
      expect(loadConfig({ ...DEVELOPMENT, ...given }).keycloakAdmin.clientSecret).toBe('a-secret-of-our-own');
      // `npm run dev` and the tests keep working without one: the realm file's development secret.
      expect(loadConfig(DEVELOPMENT).keycloakAdmin.clientSecret).toBe('atrium-account-admin-dev-secret');
    });

    it('lets the migration step run with DATABASE_URL alone: it holds none of the secrets', () => {
      expect(loadDatabaseTarget({ NODE_ENV: 'production', DATABASE_URL: deployed.DATABASE_URL })).toEqual({
        driver: 'postgresql',
        url: deployed.DATABASE_URL,
      });
      expect(loadDatabaseTarget({ NODE_ENV: 'production' }, '/srv/atrium')).toEqual({
        driver: 'sqlite',
        path: '/srv/atrium/.data/atrium.db',
      });
      expect(() => loadDatabaseTarget({ DATABASE_URL: 'mysql://x/y' })).toThrow(ConfigError);
      expect(() => loadDatabaseTarget({ DATABASE_URL: 'mysql://x/y' })).toThrow(
        /^Invalid configuration:\n {2}- DATABASE_URL="mysql:\/\/x\/y" is invalid/,
      );
    });
  });

  it("reaches Keycloak's token, admin and account endpoints by the discovery URL's name, or KEYCLOAK_ADMIN_URL", () => {
    const derived = loadConfig({
      ...DEVELOPMENT,
      OIDC_DISCOVERY_URL: 'http://keycloak:8080/realms/atrium/.well-known/openid-configuration',
    }).keycloakAdmin;
    expect(derived.tokenUrl).toBe('http://keycloak:8080/realms/atrium/protocol/openid-connect/token');
    expect(derived.adminUrl).toBe('http://keycloak:8080/admin/realms/atrium');
    expect(derived.accountUrl).toBe('http://keycloak:8080/realms/atrium/account');
    // Browsers open the authorization endpoint under the issuer, not under the API's name for Keycloak.
    expect(derived.authorizationUrl).toBe('http://localhost:8080/realms/atrium/protocol/openid-connect/auth');
    expect(
      loadConfig({ ...DEVELOPMENT, KEYCLOAK_ADMIN_URL: 'https://kc.example.test/admin/realms/x' })
        .keycloakAdmin.adminUrl,
    ).toBe('https://kc.example.test/admin/realms/x');
    expect(problemsOf({ KEYCLOAK_EVENTS_POLL_SECONDS: '-1', KEYCLOAK_ADMIN_URL: 'ftp://x' })).toEqual([
      expect.stringMatching(/^KEYCLOAK_ADMIN_URL=/),
      expect.stringMatching(/^KEYCLOAK_EVENTS_POLL_SECONDS=/),
    ]);
  });

  it('reads the dev-override origins and names a pattern it cannot use', () => {
    expect(
      loadConfig({ ...DEVELOPMENT, DEV_OVERRIDE_ORIGINS: 'http://localhost:*, http://127.0.0.1:*' })
        .devOverrideOrigins,
    ).toEqual(['http://localhost:*', 'http://127.0.0.1:*']);
    expect(() => loadConfig({ ...DEVELOPMENT, DEV_OVERRIDE_ORIGINS: 'http://*.example' })).toThrow(
      /DEV_OVERRIDE_ORIGINS="http:\/\/\*\.example" is invalid \(not an origin pattern: http:\/\/\*\.example\)/,
    );
  });

  it('traces only when an OTLP endpoint is set, and not when the SDK is disabled', () => {
    expect(
      loadConfig({ ...DEVELOPMENT, OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }).tracing,
    ).toBeUndefined();
    expect(
      loadConfig({ ...DEVELOPMENT, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing,
    ).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      headers: {},
      serviceName: 'atrium-api',
      resourceAttributes: {},
      sampler: 'parentbased_always_on',
      samplerRatio: 1,
    });
    expect(
      loadConfig({
        ...DEVELOPMENT,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_SDK_DISABLED: 'TRUE',
      }).tracing,
    ).toBeUndefined();
  });

  it("reads the OpenTelemetry specification's variables for traces", () => {
    const tracing = loadConfig({
      ...DEVELOPMENT,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      // The signal's own endpoint is used as given, without /v1/traces appended.
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://otlp.example.test/custom/traces',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20abc, x-tenant=one',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'x-tenant=two',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,service.name=ignored',
      OTEL_SERVICE_NAME: 'atrium-api-eu',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    }).tracing;
    expect(tracing).toEqual({
      tracesUrl: 'https://otlp.example.test/custom/traces',
      headers: { authorization: 'Bearer abc', 'x-tenant': 'two' },
      serviceName: 'atrium-api-eu',
      resourceAttributes: { 'deployment.environment.name': 'staging' },
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
    });
    // Without OTEL_SERVICE_NAME, a service.name among the resource attributes names the service.
    expect(
      loadConfig({
        ...DEVELOPMENT,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_RESOURCE_ATTRIBUTES: 'service.name=atrium-api-us',
      }).tracing?.serviceName,
    ).toBe('atrium-api-us');
  });

  it('refuses an exporter protocol it does not speak, and never prints exporter headers', () => {
    expect(problemsOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([
      expect.stringMatching(
        /^OTEL_EXPORTER_OTLP_PROTOCOL="grpc" is invalid \(only http\/protobuf is supported/,
      ),
    ]);
    const [problem] = problemsOf({ OTEL_EXPORTER_OTLP_HEADERS: 'authorization=Bearer%20s3cret,broken' });
    expect(problem).toMatch(
      /^OTEL_EXPORTER_OTLP_HEADERS=\(value not shown\) is invalid \(entry 2 is not a key=value pair\)/,
    );
    expect(problem).not.toContain('s3cret');
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ ...DEVELOPMENT, PORT: '', DATABASE_URL: '' }, '/srv/atrium').port).toBe(3000);
  });

  it('reads every variable', () => {
    const config = loadConfig(
      {
        ...DEVELOPMENT,
        PORT: '8081',
        HOST: '0.0.0.0',
        OIDC_ISSUER_URL: 'https://id.example.test/realms/atrium',
        OIDC_DISCOVERY_URL: 'http://keycloak:8080/realms/atrium/.well-known/openid-configuration',
        OIDC_AUDIENCE: 'api',
        DATABASE_URL: 'postgresql://atrium:pw@db:5432/atrium',
        CORS_ORIGINS: 'http://localhost:4000, https://atrium.example.test',
        LOG_LEVEL: 'debug',
        DB_MIGRATE_ON_BOOT: 'true',
        OIDC_ALGORITHMS: 'RS256, ES256',
        OIDC_CLOCK_TOLERANCE_SECONDS: '60',
        OIDC_JWKS_REFETCH_INTERVAL_SECONDS: '5',
        ALLOWED_REMOTE_ORIGINS: 'https://cdn.example.test',
        OIDC_ALLOWED_CLIENTS: 'atrium-shell, atrium-deployer',
        API_PUBLIC_URL: 'https://atrium.example.test',
        DPOP_PROOF_MAX_AGE_SECONDS: '30',
        TELEMETRY_RETENTION_DAYS: '7',
        TELEMETRY_REPORTS_PER_MINUTE: '30',
        ROLLBACK_MIN_SAMPLES: '200',
        ROLLBACK_MIN_REPORTERS: '25',
        ROLLBACK_MAX_LOADS_PER_PERSON: '4',
        ROLLBACK_PERSON_WINDOW_MINUTES: '30',
        ROLLBACK_MIN_DIFFERENCE: '0.05',
        ROLLBACK_Z: '3',
        SHELL_CLIENTS: 'atrium-shell, atrium-shell-next',
      },
      '/srv/atrium',
    );
    expect(config).toMatchObject({
      port: 8081,
      host: '0.0.0.0',
      oidcDiscoveryUrl: 'http://keycloak:8080/realms/atrium/.well-known/openid-configuration',
      database: { driver: 'postgresql', url: 'postgresql://atrium:pw@db:5432/atrium' },
      corsOrigins: ['http://localhost:4000', 'https://atrium.example.test'],
      logLevel: 'debug',
      migrateOnBoot: true,
      oidcAlgorithms: ['RS256', 'ES256'],
      clockToleranceSeconds: 60,
      jwksRefetchIntervalSeconds: 5,
      allowedRemoteOrigins: ['https://cdn.example.test'],
      allowedClients: ['atrium-shell', 'atrium-deployer'],
      apiPublicUrl: 'https://atrium.example.test',
      dpopProofMaxAgeSeconds: 30,
      telemetry: { retentionDays: 7, reportsPerMinute: 30 },
      rollback: {
        minSamples: 200,
        minReporters: 25,
        minDifference: 0.05,
        z: 3,
        maxLoadsPerPerson: 4,
        personWindowMinutes: 30,
      },
      shellClients: ['atrium-shell', 'atrium-shell-next'],
    });
  });

  it('accepts postgres:// and resolves sqlite paths against the working directory', () => {
    expect(
      loadConfig({ ...DEVELOPMENT, DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/atrium' }).database
        .driver,
    ).toBe('postgresql');
    expect(loadConfig({ ...DEVELOPMENT, DATABASE_URL: 'sqlite:data/x.db' }, '/srv').database).toEqual({
      driver: 'sqlite',
      path: '/srv/data/x.db',
    });
    expect(loadConfig({ ...DEVELOPMENT, DATABASE_URL: 'sqlite:/abs/x.db' }, '/srv').database).toEqual({
      driver: 'sqlite',
      path: '/abs/x.db',
    });
  });

  it('names every bad variable at once, with what it expects and an example', () => {
    const problems = problemsOf({
      PORT: 'abc',
      OIDC_ISSUER_URL: 'notaurl',
      DATABASE_URL: 'mysql://db/atrium',
      CORS_ORIGINS: 'http://localhost:4000/path',
      LOG_LEVEL: 'chatty',
      DB_MIGRATE_ON_BOOT: 'yes',
    });
    const expected = [
      'PORT',
      'OIDC_ISSUER_URL',
      'DATABASE_URL',
      'CORS_ORIGINS',
      'LOG_LEVEL',
      'DB_MIGRATE_ON_BOOT',
    ];
    expect(problems).toHaveLength(expected.length);
    for (const variable of expected) {
      const line = problems.find((problem) => problem.startsWith(`${variable}=`));
      expect(line, variable).toBeDefined();
      expect(line).toMatch(/expected .+, e\.g\. [A-Z_]+=\S+/);
    }
  });

  it.each([
    ['PORT', '70000'],
    ['PORT', '3.5'],
    ['OIDC_ISSUER_URL', 'ftp://id.example.test/realms/atrium'],
    ['OIDC_ISSUER_URL', 'http://localhost:8080/realms/atrium/'],
    ['DATABASE_URL', 'postgres://127.0.0.1:5432'],
    ['DATABASE_URL', 'sqlite:'],
    ['OIDC_ALGORITHMS', 'HS256'],
    ['OIDC_ALGORITHMS', 'none'],
    ['OIDC_CLOCK_TOLERANCE_SECONDS', '61'],
    ['OIDC_JWKS_REFETCH_INTERVAL_SECONDS', '0'],
    ['ALLOWED_REMOTE_ORIGINS', 'http://localhost:4100/remotes'],
    ['OIDC_ALLOWED_CLIENTS', ' , '],
    ['API_PUBLIC_URL', 'http://localhost:3000/api'],
    ['API_PUBLIC_URL', 'http://localhost:3000,http://localhost:3001'],
    ['API_PUBLIC_URL', 'localhost:3000'],
    ['DPOP_PROOF_MAX_AGE_SECONDS', '0'],
    ['AUDIT_RETENTION_DAYS', '-1'],
    ['AUDIT_RETENTION_DAYS', '1.5'],
    ['DPOP_PROOF_MAX_AGE_SECONDS', '301'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'grpc://collector:4317'],
    ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'http/json'],
    ['OTEL_RESOURCE_ATTRIBUTES', 'team'],
    ['OTEL_RESOURCE_ATTRIBUTES', 'team=%zz'],
    ['OTEL_TRACES_SAMPLER', 'sometimes'],
    ['OTEL_TRACES_SAMPLER_ARG', '1.5'],
    ['OTEL_SDK_DISABLED', 'maybe'],
  ])('refuses %s=%s', (variable, value) => {
    expect(problemsOf({ [variable]: value })).toEqual([expect.stringMatching(new RegExp(`^${variable}=`))]);
  });
});
