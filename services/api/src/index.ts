// What other workspaces may use to start the API from a script; everything else is internal.
export { createApp } from './create-app.js';
export type { AppConfig, DatabaseTarget } from './config/app-config.js';
export { ConfigError, loadConfig } from './config/env.schema.js';
export { migrateDatabase } from './database/migrate-database.js';
// The bench (bench/bench-server.ts) switches token checking off on this guard to measure its cost.
export { JwtAuthGuard } from './auth/jwt-auth.guard.js';
