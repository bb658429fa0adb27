import { setupServer, type SetupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';

/**
 * An msw server answering the test's API calls, started for the test file and reset after each test; any
 * request no handler answers fails the test. Call it once at the top of a spec file and add handlers with
 * `server.use(...)`; {@link testApiClient} (and so `renderFeature`) calls the page's own origin, which is
 * where handlers written as `${window.location.origin}/api/...` answer.
 */
export function setupApiServer(): SetupServer {
  const server = setupServer();
  beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}
