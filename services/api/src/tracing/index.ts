// The tracing's public surface: the app imports it from here (.dependency-cruiser.cjs, api-module-public-file).
export { startTracing, type Tracing } from './tracing.js';
export { annotateRequestSpans } from './request-spans.js';
