// The API's test kit as tooling outside the package reaches it (`@atrium/api/testing`): infra's checks run the
// real app (e.g. two replicas behind nginx) without importing the API's files by path.
export { createTestApp, type TestApp } from './create-test-app.js';
export { authorizationFor, type BoundToken } from './dpop-key.js';
export {
  adminQuery,
  countRows,
  databaseUrlFor,
  fetchDeployerToken,
  fetchPlatformToken,
  signIn,
} from './integration-context.js';
export { reservePort } from './local-issuer.js';
export { releaseHashes } from './release-hashes.js';
export { migrateDatabase } from '../src/database/migrate-database.js';
