// What the integration tier's global setup (infra/testing/integration-setup.ts) hands every spec through vitest's
// `inject()`. A spec's project takes these types in by importing this module (type-only).

declare module 'vitest' {
  export interface ProvidedContext {
    /** Issuer of the atrium realm on the test Keycloak, e.g. http://localhost:8080/realms/atrium. */
    oidcIssuerUrl: string;
    /** A fresh, empty PostgreSQL database for this run (dropped afterwards). */
    databaseUrl: string;
    /** Admin connection to the same server, for tests that create and drop their own databases. */
    postgresAdminUrl: string;
  }
}

export {};
