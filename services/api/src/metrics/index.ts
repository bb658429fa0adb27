// The metrics' public surface: other modules and the app import it from here (.dependency-cruiser.cjs,
// api-module-public-file).
export * from './metrics.js';
