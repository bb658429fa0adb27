import type { ApiClientOptions } from '@atrium/sdk';
import type { ApiTracing } from './api-tracing';

/**
 * The API client's `trace` option for the run-time config's `tracing`: nothing when it is absent or null (off),
 * else a function that downloads the tracing chunk (./api-tracing.ts) with the first request and starts each
 * request's span with it. Only this much is in the shell's initial JavaScript.
 */
export function apiTracer(
  config: unknown,
  load: () => Promise<{ createApiTracing: (config: unknown) => ApiTracing }> = () => import('./api-tracing'),
): ApiClientOptions['trace'] {
  if (config === undefined || config === null) return undefined;
  let tracing: Promise<ApiTracing> | undefined;
  return async (request) => {
    // A failed download is tried again with the next request (the client sends this one untraced).
    tracing ??= load()
      .then((module) => module.createApiTracing(config))
      .catch((error: unknown) => {
        tracing = undefined;
        throw error;
      });
    return (await tracing).trace(request);
  };
}
