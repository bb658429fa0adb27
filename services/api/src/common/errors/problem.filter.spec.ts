import { readFileSync } from 'node:fs';
import { ServerException } from '@mikro-orm/core';
import {
  Controller,
  Get,
  MethodNotAllowedException,
  Module,
  Param,
  ServiceUnavailableException,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/create-test-app.js';
import { type LocalIssuer, startLocalIssuer } from '@atrium/test-support/local-issuer';
import { AppModule } from '../../app.module.js';
import { Public } from '../../auth/index.js';
import { loadConfig } from '../../config/index.js';
import { isDatabaseUnavailable } from './database-availability.js';
import { ERROR_CATALOGUE } from './error-catalogue.js';

describe('problem+json for every failure', () => {
  let issuer: LocalIssuer;
  let api: TestApp;

  beforeAll(async () => {
    issuer = await startLocalIssuer();
    api = await createTestApp({ OIDC_ISSUER_URL: issuer.issuer });
    await api.waitForIssuer();
  });

  afterAll(async () => {
    await api?.close();
    await issuer?.close();
  });

  it('answers an unknown route with 404 not_found', async () => {
    const response = await api.request({ url: '/api/no-such-route' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({
      status: 404,
      code: 'not_found',
      instance: '/api/no-such-route',
    });
    expect(response.json<{ type: string }>().type).toBe('urn:atrium:problem:not_found');
  });

  it('answers errors of the router itself (bad percent-encoding, over-long segment) with problem+json', async () => {
    const badEncoding = await api.request({ url: '/api/%zz' });
    expect(badEncoding.statusCode).toBe(400);
    expect(badEncoding.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(badEncoding.json()).toMatchObject({ status: 400, code: 'malformed_request' });

    const longSegment = await api.request({ url: `/api/remotes/${'a'.repeat(150)}/versions` });
    expect(longSegment.statusCode).toBe(414);
    expect(longSegment.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(longSegment.json()).toMatchObject({ status: 414, code: 'request_rejected' });
  });

  it('answers a body that is not JSON with 400 malformed_request', async () => {
    const response = await api.request({
      method: 'PUT',
      url: '/api/me/preferences',
      token: await issuer.mint(),
      headers: { 'content-type': 'application/json' },
      rawBody: '{"theme":',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'malformed_request' });
  });

  it('answers an oversized body with 413 payload_too_large', async () => {
    const response = await api.request({
      method: 'PUT',
      url: '/api/me/preferences',
      token: await issuer.mint(),
      body: { theme: 'x'.repeat(100_000) },
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ code: 'payload_too_large' });
  });

  it('answers a non-JSON content type with 415 unsupported_media_type', async () => {
    const response = await api.request({
      method: 'PUT',
      url: '/api/me/preferences',
      token: await issuer.mint(),
      headers: { 'content-type': 'text/csv' },
      rawBody: 'theme,dark',
    });
    expect(response.statusCode).toBe(415);
    expect(response.json()).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('allows CORS from the configured origin only, with Authorization and Content-Type', async () => {
    const preflight = (origin: string) =>
      api.request({
        method: 'OPTIONS',
        url: '/api/me',
        headers: {
          origin,
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization',
        },
      });
    const allowed = await preflight('http://localhost:4000');
    expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:4000');
    expect(String(allowed.headers['access-control-allow-headers'])).toMatch(/Authorization.*Content-Type/);
    const refused = await preflight('http://evil.test');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('unexpected errors', () => {
  @Public()
  @Controller('boom')
  class BoomController {
    @Get()
    boom(): never {
      throw new Error('secret internal detail: password=hunter2');
    }

    // What MikroORM throws when PostgreSQL refuses a value: a ServerException carrying the pg error's fields.
    @Get(':sqlState')
    refusedValue(@Param('sqlState') sqlState: string): never {
      throw new ServerException(
        Object.assign(new Error('value too long for type character varying(255) password=hunter2'), {
          code: sqlState,
        }),
      );
    }

    // Nest's and Fastify's own 4xx errors, as the HTTP layer raises them.
    @Get('http/method')
    methodNotAllowed(): never {
      throw new MethodNotAllowedException('Use PUT to replace the preferences.');
    }

    @Get('http/fastify')
    fastifyClientError(): never {
      throw Object.assign(new Error(`'/api/${'a'.repeat(500)}' is exceeding the max param length`), {
        code: 'FST_ERR_MAX_PARAM_LENGTH',
        statusCode: 414,
      });
    }

    @Get('http/other')
    otherClientError(): never {
      throw Object.assign(new Error('secret internal detail: password=hunter2'), { statusCode: 409 });
    }

    @Get('http/unavailable')
    serverHttpError(): never {
      throw new ServiceUnavailableException('secret internal detail: password=hunter2');
    }
  }
  @Module({ controllers: [BoomController] })
  class BoomModule {}

  let app: NestFastifyApplication;

  beforeAll(async () => {
    const config = loadConfig({
      NODE_ENV: 'development',
      DATABASE_URL: 'sqlite::memory:',
      OIDC_ISSUER_URL: 'http://127.0.0.1:1/realms/none',
    });
    const root = AppModule.forRoot(config);
    // The real root module plus failing routes: the global filter must treat them like any other.
    app = await NestFactory.create<NestFastifyApplication>(
      { ...root, imports: [...(root.imports ?? []), BoomModule] },
      new FastifyAdapter(),
      { logger: false },
    );
    app.setGlobalPrefix('api');
    await app.init();
  });

  afterAll(async () => {
    await app?.close();
  });

  it('become a 500 problem that does not leak the message', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/boom' });
    expect(response.statusCode).toBe(500);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'internal_error', status: 500 });
    expect(response.body).not.toContain('hunter2');
  });

  it.each(['22001', '22003', '22021', '22P02', '22P05'])(
    'become 400 request_rejected when PostgreSQL refuses a value (SQLSTATE %s), without its message',
    async (sqlState) => {
      const response = await app.inject({ method: 'GET', url: `/api/boom/${sqlState}` });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'request_rejected', status: 400 });
      expect(response.json<{ detail: string }>().detail).toMatch(/cannot be stored/);
      expect(response.body).not.toContain('hunter2');
    },
  );

  it("pass a Nest 4xx error's own message on as the request_rejected detail", async () => {
    const response = await app.inject({ method: 'GET', url: '/api/boom/http/method' });
    expect(response.statusCode).toBe(405);
    expect(response.json()).toMatchObject({
      code: 'request_rejected',
      status: 405,
      detail: 'Use PUT to replace the preferences.',
    });
  });

  it("pass a Fastify 4xx error's own message on, shortened to 200 characters", async () => {
    const response = await app.inject({ method: 'GET', url: '/api/boom/http/fastify' });
    expect(response.statusCode).toBe(414);
    const { code, detail } = response.json<{ code: string; detail: string }>();
    expect(code).toBe('request_rejected');
    expect(detail).toMatch(/^'\/api\/a+…$/);
    expect([...detail]).toHaveLength(200);
  });

  it('keep the generic detail for 4xx errors of unknown origin and never pass on a 5xx message', async () => {
    const other = await app.inject({ method: 'GET', url: '/api/boom/http/other' });
    expect(other.json()).toMatchObject({
      code: 'request_rejected',
      status: 409,
      detail: 'The request was rejected.',
    });
    const unavailable = await app.inject({ method: 'GET', url: '/api/boom/http/unavailable' });
    expect(unavailable.json()).toMatchObject({ code: 'internal_error', status: 500 });
    expect(other.body + unavailable.body).not.toContain('hunter2');
  });

  it('stay 500 for other database errors (a syntax error is a bug, not the client)', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/boom/42601' });
    expect(response.statusCode).toBe(500);
    expect(response.json()).toMatchObject({ code: 'internal_error' });
  });
});

describe('isDatabaseUnavailable', () => {
  it.each([
    ['a refused connection', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['a terminated session (57P01)', Object.assign(new Error('terminating connection'), { code: '57P01' })],
    [
      'a dropped database (3D000)',
      Object.assign(new Error('database "x" does not exist'), { code: '3D000' }),
    ],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect')],
    [
      'a wrapped cause',
      new Error('query failed', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
    ],
  ])('recognises %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', Object.assign(new Error('duplicate key'), { code: '23505' })],
    ['a plain bug', new TypeError('undefined is not a function')],
    ['a non-error', 'ECONNREFUSED'],
  ])('does not mistake %s for an outage', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

describe('error catalogue', () => {
  const docs = readFileSync(new URL('../../../../../docs/errors.md', import.meta.url), 'utf8');

  it('documents every code in docs/errors.md', () => {
    for (const [code, { status }] of Object.entries(ERROR_CATALOGUE)) {
      expect(docs, code).toMatch(new RegExp(`^## ${code}\\n\\nStatus: ${status}\\b`, 'm'));
    }
  });

  it('documents no code in docs/errors.md that the catalogue lacks', () => {
    const headings = [...docs.matchAll(/^## (.+)$/gm)].map(([, heading]) => heading?.trim());
    expect(headings.filter((heading) => !(heading && heading in ERROR_CATALOGUE))).toEqual([]);
    expect(headings).toHaveLength(Object.keys(ERROR_CATALOGUE).length);
  });
});
