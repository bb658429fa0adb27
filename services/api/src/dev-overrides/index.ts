// The dev overrides' public surface: the app imports it from here, nothing else of dev-overrides/
// (.dependency-cruiser.cjs, api-module-public-file).
export * from './dev-overrides.errors.js';
export { DevOverridesModule } from './dev-overrides.module.js';
