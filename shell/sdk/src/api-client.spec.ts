import {
  base64url,
  EmbeddedJWK,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  SignJWT,
  type JWTPayload,
} from 'jose';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createApiClient,
  type ApiAuthorization,
  type ApiRequestSpan,
  type ApiRequestTarget,
} from './api-client';
import { ApiAuthorizationError, ApiForeignOriginError, ApiNetworkError, ApiProblemError } from './api-errors';

const API = 'http://api.test';
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

// The key the shell would keep in the browser; here the test plays the shell and signs real proofs with it.
const key = await generateKeyPair('ES256');
const publicJwk = await exportJWK(key.publicKey);
const hashOf = async (token: string) =>
  base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token))));

async function proofFor(target: ApiRequestTarget, token: string): Promise<string> {
  return new SignJWT({
    htm: target.method,
    htu: target.url,
    ath: await hashOf(token),
    jti: crypto.randomUUID(),
  })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: publicJwk })
    .setIssuedAt()
    .sign(key.privateKey);
}

function clientWith(tokens: { current: string; renewed?: string }) {
  const authorize = vi.fn(async (target: ApiRequestTarget): Promise<ApiAuthorization> => ({
    authorization: `DPoP ${tokens.current}`,
    dpop: await proofFor(target, tokens.current),
  }));
  const renewAuthorization = vi.fn(() => {
    if (tokens.renewed === undefined) return Promise.reject(new Error('session over'));
    tokens.current = tokens.renewed;
    return Promise.resolve();
  });
  const client = createApiClient({ baseUrl: `${API}/`, authorize, renewAuthorization });
  return { client, authorize, renewAuthorization };
}

interface SeenRequest {
  readonly authorization: string | null;
  readonly proof: JWTPayload;
  /** Whether htm, htu and ath match this very request, as an API checking DPoP compares them. */
  readonly matchesRequest: boolean;
}

/** Reads a request the way an API that checks DPoP does: the proof's signature, then its claims. */
async function seen(request: Request): Promise<SeenRequest> {
  const authorization = request.headers.get('Authorization');
  const { payload } = await jwtVerify(request.headers.get('DPoP') ?? '', EmbeddedJWK, {
    typ: 'dpop+jwt',
    algorithms: ['ES256'],
  });
  const url = new URL(request.url);
  const token = authorization?.replace(/^DPoP /, '') ?? '';
  return {
    authorization,
    proof: payload,
    matchesRequest:
      payload.htm === request.method &&
      payload.htu === `${url.origin}${url.pathname}` &&
      payload.ath === (await hashOf(token)),
  };
}

describe('createApiClient', () => {
  it('sends the token as DPoP with a proof for exactly this method and URL, and parses the JSON body', async () => {
    server.use(http.get(`${API}/api/remotes`, async ({ request }) => HttpResponse.json(await seen(request))));
    const { client } = clientWith({ current: 'token-1' });

    const answer = await client.get<SeenRequest>('/api/remotes?status=active#top');
    expect(answer.authorization).toBe('DPoP token-1');
    expect(answer.proof).toMatchObject({
      htm: 'GET',
      htu: `${API}/api/remotes`,
      ath: await hashOf('token-1'),
    });
    expect(answer.matchesRequest).toBe(true);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('names the method %s in the proof', async (method) => {
    server.use(http.all(`${API}/api/thing`, async ({ request }) => HttpResponse.json(await seen(request))));
    const { client } = clientWith({ current: 'token-1' });

    const answer = await client.request<SeenRequest>(method.toLowerCase(), '/api/thing', { x: 1 });
    expect(answer.proof.htm).toBe(method);
    expect(answer.matchesRequest).toBe(true);
  });

  it('makes a new proof for every request, so a captured proof is good for one request only', async () => {
    server.use(http.get(`${API}/api/me`, async ({ request }) => HttpResponse.json(await seen(request))));
    const { client, authorize } = clientWith({ current: 'token-1' });

    const first = await client.get<SeenRequest>('/api/me');
    const second = await client.get<SeenRequest>('/api/me');
    expect(authorize).toHaveBeenCalledTimes(2);
    expect(first.proof.jti).not.toBe(second.proof.jti);
  });

  it.each<[string, ApiAuthorization]>([
    ['no proof', { authorization: 'DPoP token-1', dpop: '' }],
    ['a proof that is not a JWT', { authorization: 'DPoP token-1', dpop: 'not-a-jwt' }],
    ['a bearer token', { authorization: 'Bearer token-1', dpop: 'a.b.c' }],
    ['no token', { authorization: 'DPoP ', dpop: 'a.b.c' }],
  ])('never sends a request authorised with %s', async (_case, authorization) => {
    const sent: string[] = [];
    server.use(
      http.all('*', ({ request }) => {
        sent.push(request.url);
        return HttpResponse.json({});
      }),
    );
    const client = createApiClient({
      baseUrl: API,
      authorize: () => Promise.resolve(authorization),
      renewAuthorization: () => Promise.resolve(),
    });

    await expect(client.get('/api/me')).rejects.toBeInstanceOf(ApiAuthorizationError);
    expect(sent).toEqual([]);
  });

  it('sends nothing and passes the reason on when the shell cannot authorise the request', async () => {
    const sent: string[] = [];
    server.use(
      http.all('*', ({ request }) => {
        sent.push(request.url);
        return HttpResponse.json({});
      }),
    );
    const client = createApiClient({
      baseUrl: API,
      authorize: () => Promise.reject(new Error('Your session has ended.')),
      renewAuthorization: () => Promise.resolve(),
    });

    await expect(client.get('/api/me')).rejects.toThrow('Your session has ended.');
    expect(sent).toEqual([]);
  });

  it('sends with keepalive only when asked, still with the checked headers', async () => {
    const inits: RequestInit[] = [];
    const client = createApiClient({
      baseUrl: API,
      authorize: () => Promise.resolve({ authorization: 'DPoP a.b.c', dpop: 'p.q.r' }),
      renewAuthorization: () => Promise.resolve(),
      fetch: (_input, init) => {
        inits.push(init ?? {});
        return Promise.resolve(new Response(null, { status: 204 }));
      },
    });
    await client.post('/api/telemetry', { reports: [] }, { keepalive: true, headers: { DPoP: 'forged' } });
    await client.get('/api/me');
    expect(inits.map((init) => init.keepalive ?? false)).toEqual([true, false]);
    const headers = new Headers(inits[0]?.headers);
    expect([headers.get('Authorization'), headers.get('DPoP')]).toEqual(['DPoP a.b.c', 'p.q.r']);
  });

  it("keeps a caller's headers from replacing Authorization or DPoP", async () => {
    server.use(http.get(`${API}/api/me`, async ({ request }) => HttpResponse.json(await seen(request))));
    const { client } = clientWith({ current: 'token-1' });

    const answer = await client.get<SeenRequest>('/api/me', {
      headers: { authorization: 'Bearer stolen', dpop: 'forged.proof.here' },
    });
    expect(answer.authorization).toBe('DPoP token-1');
    expect(answer.matchesRequest).toBe(true);
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

  it('renews the token once after a 401 and retries the request with the new token and a new proof', async () => {
    const requests: SeenRequest[] = [];
    server.use(
      http.get(`${API}/api/me`, async ({ request }) => {
        const checked = await seen(request);
        requests.push(checked);
        return checked.authorization === 'DPoP fresh' && checked.matchesRequest
          ? HttpResponse.json({ ok: true })
          : new HttpResponse(null, { status: 401 });
      }),
    );
    const { client, renewAuthorization } = clientWith({ current: 'stale', renewed: 'fresh' });

    await expect(client.get('/api/me')).resolves.toEqual({ ok: true });
    expect(renewAuthorization).toHaveBeenCalledTimes(1);
    expect(requests.map((request) => request.authorization)).toEqual(['DPoP stale', 'DPoP fresh']);
    expect(requests[1]?.proof.ath).toBe(await hashOf('fresh'));
    expect(requests[0]?.proof.jti).not.toBe(requests[1]?.proof.jti);
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
    const { client, renewAuthorization } = clientWith({ current: 'stale', renewed: 'also-rejected' });

    const error = await client.get('/api/me').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiProblemError);
    expect(error).toMatchObject({ status: 401, code: 'unauthenticated' });
    expect(renewAuthorization).toHaveBeenCalledTimes(1);
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

  it('sends the token and a proof to an absolute URL on the API origin', async () => {
    server.use(http.get(`${API}/api/remotes`, async ({ request }) => HttpResponse.json(await seen(request))));
    const { client } = clientWith({ current: 'token-1' });

    const answer = await client.get<SeenRequest>(`${API}/api/remotes?page=2`);
    expect(answer.authorization).toBe('DPoP token-1');
    expect(answer.proof.htu).toBe(`${API}/api/remotes`);
    expect(answer.matchesRequest).toBe(true);
  });

  it.each([
    ['another host', 'http://evil.test/api/me'],
    ['another scheme', 'https://api.test/api/me'],
    ['another port', 'http://api.test:8443/api/me'],
    ['a look-alike host', 'http://api.test.evil.test/api/me'],
    ['another host in an upper-case scheme', 'HTTP://evil.test/api/me'],
  ])('refuses an absolute URL on %s without authorising or sending anything', async (_case, url) => {
    const sent: string[] = [];
    server.use(
      http.all('*', ({ request }) => {
        sent.push(request.url);
        return HttpResponse.json({});
      }),
    );
    const { client, authorize, renewAuthorization } = clientWith({ current: 'token-1' });

    const error = await client.post(url, { x: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiForeignOriginError);
    expect(error).toMatchObject({ url, apiOrigin: API });
    expect(sent).toEqual([]);
    expect(authorize).not.toHaveBeenCalled();
    expect(renewAuthorization).not.toHaveBeenCalled();
  });

  describe('typed methods (openapi-fetch over the generated contract)', () => {
    it('fills the path parameter, sends the JSON body and a proof for exactly that URL, and resolves the answer', async () => {
      let request: { seen: SeenRequest; body: unknown; contentType: string | null } | undefined;
      server.use(
        http.put(`${API}/api/remotes/:name/active`, async ({ request: incoming }) => {
          request = {
            seen: await seen(incoming.clone()),
            body: await incoming.json(),
            contentType: incoming.headers.get('Content-Type'),
          };
          return HttpResponse.json({ name: 'profile', activeVersion: '1.0.1' });
        }),
      );
      const { client } = clientWith({ current: 'token-1' });

      const remote = await client.PUT('/api/remotes/{name}/active', {
        params: { path: { name: 'profile' } },
        body: { version: '1.0.1' },
      });
      expect(remote).toMatchObject({ name: 'profile', activeVersion: '1.0.1' });
      expect(request?.body).toEqual({ version: '1.0.1' });
      expect(request?.contentType).toBe('application/json');
      expect(request?.seen.proof).toMatchObject({ htm: 'PUT', htu: `${API}/api/remotes/profile/active` });
      expect(request?.seen.matchesRequest).toBe(true);
    });

    it('sends the query and leaves it out of the proof', async () => {
      let url: string | undefined;
      let proof: JWTPayload | undefined;
      server.use(
        http.get(`${API}/api/audit`, async ({ request }) => {
          url = request.url;
          proof = (await seen(request)).proof;
          return HttpResponse.json({ items: [], pageSize: 5, nextCursor: null });
        }),
      );
      const { client } = clientWith({ current: 'token-1' });

      const page = await client.GET('/api/audit', { params: { query: { pageSize: 5, actor: 'ada' } } });
      expect(page.nextCursor).toBeNull();
      expect(url).toBe(`${API}/api/audit?pageSize=5&actor=ada`);
      expect(proof?.htu).toBe(`${API}/api/audit`);
    });

    it('renews once after a 401 and retries with a new proof, like the other methods', async () => {
      const requests: SeenRequest[] = [];
      server.use(
        http.put(`${API}/api/me/preferences`, async ({ request }) => {
          const checked = await seen(request.clone());
          requests.push(checked);
          if (checked.authorization !== 'DPoP fresh') {
            return new HttpResponse(null, {
              status: 401,
              headers: { 'WWW-Authenticate': 'DPoP realm="atrium", error="invalid_token"' },
            });
          }
          return HttpResponse.json({ preferences: await request.json() });
        }),
      );
      const { client, renewAuthorization } = clientWith({ current: 'stale', renewed: 'fresh' });

      const me = await client.PUT('/api/me/preferences', { body: { theme: 'dark' } });
      expect(me.preferences).toEqual({ theme: 'dark' });
      expect(renewAuthorization).toHaveBeenCalledTimes(1);
      expect(requests.map((request) => request.authorization)).toEqual(['DPoP stale', 'DPoP fresh']);
      expect(requests[0]?.proof.jti).not.toBe(requests[1]?.proof.jti);
    });

    it('rejects with ApiProblemError carrying the problem document', async () => {
      server.use(
        http.put(`${API}/api/me/preferences`, () =>
          HttpResponse.json(
            {
              type: 'urn:atrium:problem:validation_failed',
              title: 'Request validation failed',
              status: 400,
              detail: 'The request is invalid: theme: must be one of system, light, dark.',
              code: 'validation_failed',
              errors: [{ field: 'theme', message: 'must be one of system, light, dark' }],
            },
            { status: 400, headers: { 'Content-Type': 'application/problem+json' } },
          ),
        ),
      );
      const { client } = clientWith({ current: 'token-1' });

      const error = await client
        .PUT('/api/me/preferences', { body: { theme: 'light' } })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ApiProblemError);
      expect((error as ApiProblemError).fieldError('theme')).toBe('must be one of system, light, dark');
    });
  });

  describe('tracing (only when the shell passes `trace`)', () => {
    /** A tracer as the shell's tracing chunk is one: a new span id per request, the outcome of each noted. */
    function recordingTracer() {
      const started: ApiRequestTarget[] = [];
      const ended: Array<{ traceparent: string; outcome: unknown }> = [];
      const trace = vi.fn((request: ApiRequestTarget): Promise<ApiRequestSpan> => {
        started.push(request);
        const traceparent = `00-0af7651916cd43dd8448eb211c80319c-${String(started.length).padStart(16, '0')}-01`;
        return Promise.resolve({
          // A tracer cannot replace the authorisation either.
          headers: { traceparent, Authorization: 'Bearer stolen' },
          end: (outcome) => ended.push({ traceparent, outcome }),
        });
      });
      return { trace, started, ended };
    }

    it('sends no traceparent without it', async () => {
      server.use(
        http.get(`${API}/api/me`, ({ request }) => HttpResponse.json(request.headers.get('traceparent'))),
      );
      const { client } = clientWith({ current: 'token-1' });
      await expect(client.get('/api/me')).resolves.toBeNull();
    });

    it("continues each request's own span in the API, a retry after 401 included, and ends it with the status", async () => {
      const received: Array<{ traceparent: string | null; authorization: string | null }> = [];
      server.use(
        http.get(`${API}/api/me`, ({ request }) => {
          received.push({
            traceparent: request.headers.get('traceparent'),
            authorization: request.headers.get('Authorization'),
          });
          return received.length === 1 ? new HttpResponse(null, { status: 401 }) : HttpResponse.json({});
        }),
      );
      const tracer = recordingTracer();
      const client = createApiClient({
        baseUrl: API,
        authorize: () => Promise.resolve({ authorization: 'DPoP token-1', dpop: 'a.b.c' }),
        renewAuthorization: () => Promise.resolve(),
        trace: tracer.trace,
      });

      await client.get('/api/me?x=1');
      expect(tracer.started).toEqual([
        { method: 'GET', url: `${API}/api/me` },
        { method: 'GET', url: `${API}/api/me` },
      ]);
      expect(received).toEqual([
        {
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-0000000000000001-01',
          authorization: 'DPoP token-1',
        },
        {
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-0000000000000002-01',
          authorization: 'DPoP token-1',
        },
      ]);
      expect(tracer.ended).toEqual([
        { traceparent: received[0]!.traceparent, outcome: { status: 401 } },
        { traceparent: received[1]!.traceparent, outcome: { status: 200 } },
      ]);
    });

    it('ends the span with the error when no answer came, and answers whatever becomes of tracing', async () => {
      server.use(http.get(`${API}/api/down`, () => HttpResponse.error()));
      const tracer = recordingTracer();
      const options = {
        baseUrl: API,
        authorize: () => Promise.resolve({ authorization: 'DPoP token-1', dpop: 'a.b.c' }),
        renewAuthorization: () => Promise.resolve(),
      };
      const traced = createApiClient({ ...options, trace: tracer.trace });
      await expect(traced.get('/api/down')).rejects.toBeInstanceOf(ApiNetworkError);
      expect(tracer.ended).toHaveLength(1);
      expect((tracer.ended[0]?.outcome as { error?: unknown }).error).toBeInstanceOf(TypeError);

      server.use(
        http.get(`${API}/api/me`, ({ request }) => HttpResponse.json(request.headers.get('traceparent'))),
      );
      const broken = createApiClient({ ...options, trace: () => Promise.reject(new Error('chunk failed')) });
      await expect(broken.get('/api/me')).resolves.toBeNull();
      const failingEnd = createApiClient({
        ...options,
        trace: () =>
          Promise.resolve({
            headers: {},
            end: () => {
              throw new Error('exporter bug');
            },
          }),
      });
      await expect(failingEnd.get('/api/me')).resolves.toBeNull();
    });
  });
});
