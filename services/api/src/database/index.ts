// The database module's public surface: other modules and the app import it from here, nothing else of
// database/ (.dependency-cruiser.cjs, api-module-public-file). It imports no other module's entities: each
// module registers its own (database.module.ts).
export { DatabaseHealth } from './database-health.js';
export { DatabaseModule } from './database.module.js';
export { migrateDatabase } from './migrate-database.js';
export { migrationsPath, ormOptions } from './orm-options.js';
export { type PreparedRead, preparedRead } from './prepared-read.js';
export { RequestContextInterceptor } from './request-context.interceptor.js';
