import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiClient } from './api-client';
import { ApiForeignOriginError, ApiNetworkError, ApiProblemError } from './api-errors';

const API = 'http://api.test';
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function clientWith(tokens: { current: string; renewed?: string }) {
  const getAccessToken = vi.fn(() => Promise.resolve(tokens.current));
  const renewAccessToken = vi.fn(() =>
    tokens.renewed === undefined
      ? Promise.reject(new Error('session over'))
      : Promise.resolve(tokens.renewed),
  );
  const client = createApiClient({
    baseUrl: `${API}/`,
    getAccessToken,
    renewAccessToken,
  });
  return { client, getAccessToken, renewAccessToken };
}

describe('createApiClient', () => {
  it('sends the access token as a Bearer header and parses the JSON body', async () => {
    server.use(
      http.get(`${API}/api/me`, ({ request }) =>
        HttpResponse.json({ seen: request.headers.get('Authorization') }),
      ),
    );
    const { client } = clientWith({ current: 'token-1' });

    await expect(client.get('/api/me')).resolves.toEqual({ seen: 'Bearer token-1' });
  });

  it('sends a JSON body with its content type', async () => {
    server.use(
      http.put(`${API}/api/me/preferences`, async ({ request }) =>
        HttpResponse.json({ type: request.headers.get('Content-Type'), body: await request.json() }),
      ),
    );
    const { client } = clientWith({ current: 'token-1' });

    await expect(client.put('/api/me/preferences', { theme: 'dark' })).resolves.toEqual({
      type: 'application/json',
      body: { theme: 'dark' },
    });
  });

  it('renews the token once after a 401 and retries the request with the new token', async () => {
    const seen: (string | null)[] = [];
    server.use(
      http.get(`${API}/api/me`, ({ request }) => {
        const authorization = request.headers.get('Authorization');
        seen.push(authorization);
        return authorization === 'Bearer fresh'
          ? HttpResponse.json({ ok: true })
          : new HttpResponse(null, { status: 401 });
      }),
    );
    const { client, renewAccessToken } = clientWith({ current: 'stale', renewed: 'fresh' });

    await expect(client.get('/api/me')).resolves.toEqual({ ok: true });
    expect(renewAccessToken).toHaveBeenCalledTimes(1);
    expect(seen).toEqual(['Bearer stale', 'Bearer fresh']);
  });

  it('gives up with a 401 ApiProblemError when the retried request is also unauthorised', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/api/me`, () => {
        calls += 1;
        return HttpResponse.json(
          { type: 'about:blank', title: 'Unauthorized', status: 401, code: 'unauthenticated' },
          { status: 401, headers: { 'Content-Type': 'application/problem+json' } },
        );
      }),
    );
    const { client, renewAccessToken } = clientWith({ current: 'stale', renewed: 'also-rejected' });

    const error = await client.get('/api/me').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiProblemError);
    expect(error).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(renewAccessToken).toHaveBeenCalledTimes(1);
    expect(calls).toBe(2);
  });

  it('reports the 401 without retrying when the token cannot be renewed', async () => {
    let calls = 0;
    server.use(
      http.get(`${API}/api/me`, () => {
        calls += 1;
        return new HttpResponse(null, { status: 401, statusText: 'Unauthorized' });
      }),
    );
    const { client } = clientWith({ current: 'stale' });

    await expect(client.get('/api/me')).rejects.toMatchObject({ status: 401, code: 'http_401' });
    expect(calls).toBe(1);
  });

  it('turns an application/problem+json answer into an ApiProblemError with its fields', async () => {
    server.use(
      http.put(`${API}/api/me/preferences`, () =>
        HttpResponse.json(
          {
            type: 'https://atrium.dev/problems/validation-failed',
            title: 'Invalid request',
            status: 400,
            detail: 'The request body is invalid.',
            code: 'validation_failed',
            errors: [{ field: 'theme', message: 'theme must be one of system, light, dark' }],
          },
          { status: 400, headers: { 'Content-Type': 'application/problem+json' } },
        ),
      ),
    );
    const { client } = clientWith({ current: 'token-1' });

    const error = await client
      .put('/api/me/preferences', { theme: 'neon' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiProblemError);
    const problem = error as ApiProblemError;
    expect(problem).toMatchObject({
      status: 400,
      code: 'validation_failed',
      title: 'Invalid request',
      detail: 'The request body is invalid.',
      type: 'https://atrium.dev/problems/validation-failed',
    });
    expect(problem.errors).toEqual([{ field: 'theme', message: 'theme must be one of system, light, dark' }]);
    expect(problem.fieldError('theme')).toBe('theme must be one of system, light, dark');
  });

  it('derives a problem from the status when the error body is not problem+json', async () => {
    server.use(
      http.get(
        `${API}/api/me`,
        () => new HttpResponse('upstream down', { status: 502, statusText: 'Bad Gateway' }),
      ),
    );
    const { client } = clientWith({ current: 'token-1' });

    await expect(client.get('/api/me')).rejects.toMatchObject({
      name: 'ApiProblemError',
      status: 502,
      code: 'http_502',
      title: 'Bad Gateway',
    });
  });

  it('turns a failed connection into an ApiNetworkError naming the URL', async () => {
    server.use(http.get(`${API}/api/me`, () => HttpResponse.error()));
    const { client } = clientWith({ current: 'token-1' });

    const error = await client.get('/api/me').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiNetworkError);
    expect((error as ApiNetworkError).url).toBe(`${API}/api/me`);
  });

  it('resolves undefined for 204 No Content', async () => {
    server.use(http.delete(`${API}/api/thing`, () => new HttpResponse(null, { status: 204 })));
    const { client } = clientWith({ current: 'token-1' });

    await expect(client.delete('/api/thing')).resolves.toBeUndefined();
  });

  it('sends the token to an absolute URL on the API origin', async () => {
    server.use(
      http.get(`${API}/api/remotes`, ({ request }) =>
        HttpResponse.json({ seen: request.headers.get('Authorization') }),
      ),
    );
    const { client } = clientWith({ current: 'token-1' });

    await expect(client.get(`${API}/api/remotes`)).resolves.toEqual({ seen: 'Bearer token-1' });
  });

  it.each([
    ['another host', 'http://evil.test/api/me'],
    ['another scheme', 'https://api.test/api/me'],
    ['another port', 'http://api.test:8443/api/me'],
    ['a look-alike host', 'http://api.test.evil.test/api/me'],
    ['another host in an upper-case scheme', 'HTTP://evil.test/api/me'],
  ])('refuses an absolute URL on %s without reading the token or sending anything', async (_case, url) => {
    const sent: string[] = [];
    server.use(
      http.all('*', ({ request }) => {
        sent.push(request.url);
        return HttpResponse.json({});
      }),
    );
    const { client, getAccessToken, renewAccessToken } = clientWith({ current: 'token-1' });

    const error = await client.post(url, { x: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiForeignOriginError);
    expect(error).toMatchObject({ url, apiOrigin: API });
    expect(sent).toEqual([]);
    expect(getAccessToken).not.toHaveBeenCalled();
    expect(renewAccessToken).not.toHaveBeenCalled();
  });
});
