// The account module's public surface: other modules and the app import it from here, nothing else of
// account/ (.dependency-cruiser.cjs, api-module-public-file).
export { ACCOUNT_ENTITIES, AccountModule } from './account.module.js';
export * from './account.errors.js';
export { type SubjectEraser, SubjectErasure } from './subject-erasure.js';
