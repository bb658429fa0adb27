import type { LogLevel } from '@nestjs/common';
import type { TRACE_SAMPLERS } from './variables.js';

/** Where the API keeps its data; chosen from `DATABASE_URL`. */
export type DatabaseTarget =
  | { readonly driver: 'postgresql'; readonly url: string }
  | { readonly driver: 'sqlite'; readonly path: string };

/** How the API reaches Keycloak's admin API on a person's behalf (services/api/src/account). */
export interface KeycloakAdminConfig {
  /**
   * The API's confidential client (`KEYCLOAK_ADMIN_CLIENT_ID`): its service account reads Keycloak's events, and
   * people grant it their own token for Keycloak's account API (docs/security.md).
   */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The realm's token endpoint, reached by the API's own name for Keycloak (from `OIDC_DISCOVERY_URL`). */
  readonly tokenUrl: string;
  /** The realm's admin REST API, e.g. http://keycloak:8080/admin/realms/atrium. */
  readonly adminUrl: string;
  /** The realm's account REST API, by the same name as the token endpoint, e.g. http://keycloak:8080/realms/atrium/account. */
  readonly accountUrl: string;
  /** The realm's authorization endpoint as browsers reach it (under `OIDC_ISSUER_URL`). */
  readonly authorizationUrl: string;
  /** How often Keycloak's events are copied into the audit log; 0 turns the copying off. */
  readonly eventsPollSeconds: number;
}

/** OpenTelemetry tracing (services/api/src/tracing), from the specification's `OTEL_*` variables. */
export interface TracingConfig {
  /** Where spans are sent, OTLP/HTTP with protobuf bodies, e.g. http://localhost:4318/v1/traces. */
  readonly tracesUrl: string;
  /** Sent with every export (`OTEL_EXPORTER_OTLP_HEADERS`, `..._TRACES_HEADERS`): may hold credentials. */
  readonly headers: Readonly<Record<string, string>>;
  /** `service.name` (`OTEL_SERVICE_NAME`, default atrium-api). */
  readonly serviceName: string;
  /** Further resource attributes (`OTEL_RESOURCE_ATTRIBUTES`), e.g. deployment.environment.name. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /** `OTEL_TRACES_SAMPLER`: which traces are recorded; parent-based ones follow the caller's decision. */
  readonly sampler: (typeof TRACE_SAMPLERS)[number];
  /** `OTEL_TRACES_SAMPLER_ARG`: the share of traces the ratio samplers keep. */
  readonly samplerRatio: number;
}

/** The validated configuration the whole API runs on; built once by `loadConfig()`. */
export interface AppConfig {
  readonly port: number;
  readonly host: string;
  readonly oidcIssuerUrl: string;
  /** Where the discovery document is fetched; differs from the issuer when the API reaches it by another name. */
  readonly oidcDiscoveryUrl: string;
  readonly oidcAudience: string;
  /** Signature algorithms a token may use (`OIDC_ALGORITHMS`); never `none` or an HMAC. */
  readonly oidcAlgorithms: readonly string[];
  /** Leeway for `exp` and `nbf`, at most 60 s. */
  readonly clockToleranceSeconds: number;
  /** How often the JWKS is refreshed in the background. */
  readonly jwksCacheSeconds: number;
  /** Minimum time between JWKS refetches caused by tokens with an unknown `kid`. */
  readonly jwksRefetchIntervalSeconds: number;
  /** Clients (`azp`) whose access tokens the API accepts (`OIDC_ALLOWED_CLIENTS`). */
  readonly allowedClients: readonly string[];
  /** Clients whose tokens must be DPoP-bound (`OIDC_DPOP_REQUIRED_CLIENTS`): an unbound one is refused. */
  readonly dpopRequiredClients: readonly string[];
  /** The platform pipeline's client (`PLATFORM_CLIENT_ID`): only it gives a remote it owns to another owner. */
  readonly platformClientId: string;
  /**
   * The origin browsers call the API at (`API_PUBLIC_URL`), the same behind a proxy or ingress: a DPoP
   * proof's `htu` must be this origin followed by the request's path.
   */
  readonly apiPublicUrl: string;
  /** How old a DPoP proof's `iat` may be, in seconds (plus the clock tolerance either way). */
  readonly dpopProofMaxAgeSeconds: number;
  /** Audit entries older than this many days are pruned (`AUDIT_RETENTION_DAYS`); 0 keeps them forever. */
  readonly auditRetentionDays: number;
  /** Where `GET /metrics` (Prometheus) is served: a port of its own, loopback unless deployed for scraping. */
  readonly metrics: { readonly port: number; readonly host: string };
  /** Field telemetry from the shell: how long its aggregates are kept, how often one person may report. */
  readonly telemetry: { readonly retentionDays: number; readonly reportsPerMinute: number };
  /**
   * When a canary is rolled back automatically (rollout/rollback-policy.ts): each side has at least
   * `minSamples` loads from at least `minReporters` people, the canary's failure rate exceeds stable's by more
   * than `minDifference`, and the one-sided two-proportion z statistic exceeds `z`. Each person counts for at
   * most `maxLoadsPerPerson` loads of a side per `personWindowMinutes`.
   */
  readonly rollback: {
    readonly minSamples: number;
    readonly minReporters: number;
    readonly minDifference: number;
    readonly z: number;
    readonly maxLoadsPerPerson: number;
    readonly personWindowMinutes: number;
  };
  readonly database: DatabaseTarget;
  readonly corsOrigins: readonly string[];
  /** Origins a published remote's manifest URL may live on. */
  readonly allowedRemoteOrigins: readonly string[];
  /**
   * The clients (`azp`) people sign in through (`SHELL_CLIENTS`, default the shell): only their tokens may
   * manage an account or report field telemetry, never a machine client's.
   */
  readonly shellClients: readonly string[];
  /** The deployed shell's mf-manifest.json (`SHELL_MANIFEST_URL`); null: releases are not checked against it. */
  readonly shellManifestUrl: string | null;
  readonly keycloakAdmin: KeycloakAdminConfig;
  /**
   * Origins (`scheme://host:port` or `scheme://host:*`) whose dev servers a person with the role
   * atrium-developer may load instead of a remote's active version, in their own session
   * (`DEV_OVERRIDE_ORIGINS`); empty: dev overrides are off.
   */
  readonly devOverrideOrigins: readonly string[];
  /** Tracing, set only when an OTLP endpoint is configured (and `OTEL_SDK_DISABLED` is not true). */
  readonly tracing: TracingConfig | undefined;
  readonly logLevel: LogLevel;
  readonly migrateOnBoot: boolean;
}

/** Nest injection token for {@link AppConfig}. */
export const APP_CONFIG = Symbol('APP_CONFIG');
