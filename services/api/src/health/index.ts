// The health module's public surface: the app imports it from here (.dependency-cruiser.cjs,
// api-module-public-file).
export { HealthModule } from './health.module.js';
