// The API's test kit: what builds the API itself in-process (`createTestApp`, the migrations), which needs the
// API's source and so lives in this package, reached from outside as `@atrium/api/testing` (infra's checks run
// two replicas behind nginx). Everything that drives the real parts from outside (Keycloak, tokens and DPoP
// keys, a stand-in issuer, PostgreSQL, OTLP, log lines, release hashes) is @atrium/test-support's.
export { createTestApp, type TestApp } from './create-test-app.js';
export { migrateDatabase } from '../src/database/migrate-database.js';
export { registerRemote } from './registered-remote.js';
// The integration tier's `inject()` keys, for the API's int-specs (this folder is in the API's tsconfig).
export type {} from '@atrium/test-support/integration-tier';
