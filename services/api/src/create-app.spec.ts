import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/create-test-app.js';
import { ERROR_CATALOGUE } from './common/errors/error-catalogue.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { captureLogLines } from '@atrium/test-support/logs';

describe('operations: OpenAPI, logs, request ids, security headers', () => {
  let issuer: LocalIssuer;
  let api: TestApp;
  const { lines, destination } = captureLogLines();

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp(
      { OIDC_ISSUER_URL: issuer.issuer, LOG_LEVEL: 'log' },
      { logDestination: destination },
    );
    await api.waitForIssuer();
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  it('serves an OpenAPI 3.1 document describing every route with the bearer and DPoP schemes', async () => {
    const response = await api.request({ url: '/api/docs-json' });
    expect(response.statusCode).toBe(200);
    const document = response.json<{
      openapi: string;
      paths: Record<
        string,
        Record<string, { security?: unknown; requestBody?: unknown; responses: Record<string, unknown> }>
      >;
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
    }>();
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes['bearer']).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(document.components.securitySchemes['dpop']).toMatchObject({ type: 'http', scheme: 'DPoP' });
    expect(Object.keys(document.paths).sort()).toEqual(
      [
        '/api/account/access',
        '/api/account/access-request',
        '/api/account/activity',
        '/api/account/credentials',
        '/api/account/sessions',
        '/api/account/sessions/sign-out-others',
        '/api/admin/remotes',
        '/api/admin/remotes/{name}/health',
        '/api/audit',
        '/api/dev-overrides',
        '/api/health/live',
        '/api/health/ready',
        '/api/me',
        '/api/me/preferences',
        '/api/remotes',
        '/api/remotes/{name}',
        '/api/remotes/{name}/active',
        '/api/remotes/{name}/rollout',
        '/api/remotes/{name}/rollout/abort',
        '/api/remotes/{name}/rollout/promote',
        '/api/remotes/{name}/versions',
        '/api/remotes/{name}/versions/{version}/withdrawal',
        '/api/telemetry',
      ].sort(),
    );
    const publish = document.paths['/api/remotes/{name}/versions']?.['post'];
    expect(publish?.security).toEqual(expect.arrayContaining([{ bearer: [] }, { dpop: [] }]));
    expect(JSON.stringify(publish?.requestBody)).toContain('#/components/schemas/PublishVersion');
    expect(JSON.stringify(document.components.schemas['PublishVersion'])).toContain('manifestUrl');
    expect(Object.keys(publish?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '401', '403', '409']),
    );
    expect(document.components.schemas['Problem']).toBeDefined();
    // Every reference resolves inside the document (zod's own `#/$defs/...` ones were the dangling kind).
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
      expect(target, ref).toBeDefined();
    }
    // Every problem code of the catalogue has an example, and each operation's problem answers carry
    // an example per code.
    const examples = (document.components as { examples?: Record<string, { value: { code: string } }> })
      .examples;
    expect(Object.keys(examples ?? {}).sort()).toEqual(Object.keys(ERROR_CATALOGUE).sort());
    const forbidden = publish?.responses['403'] as {
      content: Record<string, { examples: Record<string, unknown> }>;
    };
    expect(Object.keys(forbidden.content['application/problem+json']?.examples ?? {})).toEqual([
      'insufficient_scope',
      'not_remote_owner',
    ]);
    const access = document.paths['/api/account/access']?.['post'];
    expect(JSON.stringify(access?.requestBody)).toContain('#/components/schemas/AccountAccessGrant');
    expect(Object.keys(access?.responses ?? {})).toEqual(
      expect.arrayContaining(['204', '400', '403', '503']),
    );
    expect(JSON.stringify(document.components.schemas['AccountSession'])).toContain('lastAccessAt');
    const audit = document.paths['/api/audit']?.['get'] as {
      parameters?: Array<{ name: string; in: string }>;
    };
    expect(audit.parameters?.map((parameter) => `${parameter.in}:${parameter.name}`)).toEqual(
      expect.arrayContaining(['query:pageSize', 'query:before', 'query:actor', 'query:from', 'query:to']),
    );
  });

  it('serves the browsable documentation at /api/docs', async () => {
    const response = await api.request({ url: '/api/docs' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    expect(response.body).toContain('swagger');
  });

  it('sends security headers and the request id on every answer: success, refusal, 404 and router errors', async () => {
    const answers = await Promise.all([
      api.request({ url: '/api/health/live' }),
      api.request({ url: '/api/me' }),
      api.request({ url: '/api/no-such-route' }),
      api.request({ url: '/api/%zz' }),
      api.request({ url: '/api/docs' }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 401, 404, 400, 200]);
    for (const answer of answers) {
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expect(answer.headers['cross-origin-resource-policy']).toBe('same-site');
      expect(answer.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(answer.headers['content-security-policy']).toContain("style-src 'self' 'unsafe-inline'");
      expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(answer.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('allows CORS for the configured origins only (with the DPoP proof header), on refusals too, so the browser can read the problem', async () => {
    const allowed = 'http://localhost:4000';
    expect(api.config.corsOrigins).toEqual([allowed]);
    const refused = await api.request({ url: '/api/me', headers: { origin: allowed } });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['access-control-allow-origin']).toBe(allowed);
    expect(refused.headers['access-control-expose-headers']).toBe(
      'X-Request-Id, Retry-After, WWW-Authenticate',
    );
    expect(refused.headers['vary']).toBe('Origin');

    const preflight = await api.request({
      method: 'OPTIONS',
      url: '/api/me/preferences',
      headers: {
        origin: allowed,
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'authorization, content-type, dpop',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(allowed);
    expect(preflight.headers['access-control-allow-methods']).toContain('PUT');
    // traceparent and tracestate always: a shell that traces its calls must work against an API that does not.
    expect(preflight.headers['access-control-allow-headers']).toBe(
      'Authorization, Content-Type, X-Request-Id, DPoP, traceparent, tracestate',
    );
    expect(preflight.headers['access-control-max-age']).toBe('600');

    expect(preflight.headers['vary']).toBe('Origin');
    expect(preflight.body).toBe('');

    // Refused by Fastify's router before any route or hook: the allowed origin can still read the problem.
    const unroutable = await api.request({ url: '/api/remotes/%E0%A4%A', headers: { origin: allowed } });
    expect(unroutable.statusCode).toBe(400);
    expect(unroutable.headers['access-control-allow-origin']).toBe(allowed);

    const stranger = await api.request({ url: '/api/health/live', headers: { origin: 'https://evil.test' } });
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    // Origins that only look like the allowed one: compared whole, never by prefix or suffix.
    for (const lookalike of [`${allowed}.evil.test`, `${allowed}/`, 'http://localhost:40000', 'null']) {
      const answer = await api.request({
        method: 'OPTIONS',
        url: '/api/me',
        headers: { origin: lookalike, 'access-control-request-method': 'GET' },
      });
      expect(answer.statusCode).toBe(204);
      expect(answer.headers['access-control-allow-origin'], lookalike).toBeUndefined();
    }
  });

  it('answers an OPTIONS request that is no CORS preflight like any path without that method: a 404 problem', async () => {
    const notPreflights: Record<string, string>[] = [
      {},
      { origin: 'http://localhost:4000' },
      { 'access-control-request-method': 'GET' },
      { origin: '', 'access-control-request-method': 'PUT' },
    ];
    for (const headers of notPreflights) {
      const answer = await api.request({ method: 'OPTIONS', url: '/api/me', headers });
      expect(answer.statusCode).toBe(404);
      expect(answer.headers['content-type']).toContain('application/problem+json');
      expect(answer.headers['x-request-id']).toBeDefined();
    }
  });

  it('returns the client X-Request-Id, or a fresh one, and logs it', async () => {
    const echoed = await api.request({
      url: '/api/health/live',
      headers: { 'x-request-id': 'trace-abc.123' },
    });
    expect(echoed.headers['x-request-id']).toBe('trace-abc.123');
    const fresh = await api.request({
      url: '/api/health/live',
      headers: { 'x-request-id': 'bad id\nwith newline' },
    });
    expect(fresh.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines.some((line) => line['requestId'] === 'trace-abc.123')).toBe(true);
  });

  it('writes JSON log lines that never contain the token', async () => {
    const token = await issuer.mint();
    await api.request({ url: '/api/me', token });
    await api.request({ url: `/api/me?access_token=${token}` });
    const text = JSON.stringify(lines);
    expect(lines.length).toBeGreaterThan(0);
    expect(text).not.toContain(token.split('.')[2]);
    expect(text).toContain('[redacted]');
  });
});
