// What other workspaces may use to start the API from a script; everything else is internal.
export { createApp } from './create-app.js';
export { type AppConfig, ConfigError, type DatabaseTarget, loadConfig } from './config/index.js';
export { migrateDatabase } from './database/index.js';
// The bench (bench/bench-server.ts) switches token checking off on this guard to measure its cost.
export { JwtAuthGuard } from './auth/index.js';
