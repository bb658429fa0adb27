// The telemetry module's public surface: the app imports it from here, nothing else of telemetry/
// (.dependency-cruiser.cjs, api-module-public-file).
export { TELEMETRY_ENTITIES, TelemetryModule } from './telemetry.module.js';
