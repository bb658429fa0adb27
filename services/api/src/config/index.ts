// The configuration's public surface: other modules and the app import it from here, nothing else of config/
// (.dependency-cruiser.cjs, api-module-public-file).
export {
  APP_CONFIG,
  type AppConfig,
  type DatabaseTarget,
  type KeycloakAdminConfig,
  type TracingConfig,
} from './app-config.js';
export { ConfigModule } from './config.module.js';
export {
  ConfigError,
  ensureDatabaseDirectory,
  envSchema,
  loadConfig,
  loadDatabaseTarget,
} from './env.schema.js';
export { TRACE_SAMPLERS } from './variables.js';
