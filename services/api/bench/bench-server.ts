// One server of the benchmark, started pinned to its own core by bench.ts:
//   node bench/bench-server.ts <api|api-no-auth|bare> <port> <issuer> <database-url>
import { type EntityManager, MikroORM } from '@mikro-orm/core';
import type { ExecutionContext } from '@nestjs/common';
import Fastify, { LogController } from 'fastify';
import { pino } from 'pino';
import type * as Api from '../src/index.ts';
import type * as Logging from '../src/common/logging/logger.ts';
import type * as ResponseHeaders from '../src/common/http/response-headers.ts';
import type * as RemoteEntities from '../src/registry/remote.entity.ts';
import type * as VersionEntities from '../src/registry/remote-version.entity.ts';

// The built API (decorators need compiling); typed by its sources.
const { createApp, loadConfig, migrateDatabase, JwtAuthGuard } = (await import(
  new URL('../dist/index.js', import.meta.url).href
)) as typeof Api;
const { createRootLogger, requestIdOf } = (await import(
  new URL('../dist/common/logging/logger.js', import.meta.url).href
)) as typeof Logging;
const { Remote } = (await import(
  new URL('../dist/registry/remote.entity.js', import.meta.url).href
)) as typeof RemoteEntities;
const { RemoteVersion } = (await import(
  new URL('../dist/registry/remote-version.entity.js', import.meta.url).href
)) as typeof VersionEntities;
const { SECURITY_HEADERS, CORS_RULES } = (await import(
  new URL('../dist/common/http/response-headers.js', import.meta.url).href
)) as typeof ResponseHeaders;

// The API's headers on a response to a request without Origin: its security headers and what its CORS rules
// add, written out.
const STATIC_HEADERS = {
  ...SECURITY_HEADERS,
  vary: 'Origin',
  'access-control-expose-headers': CORS_RULES.exposedHeaders.join(', '),
};

const [mode, port, issuer, databaseUrl] = process.argv.slice(2);
if (!mode || !port || !issuer || !databaseUrl)
  throw new Error('usage: bench-server.ts <mode> <port> <issuer> <database-url>');

// Both sides log every request at the production level (LOG_LEVEL's default), with the same pino logger,
// redaction and request-id label, to /dev/null: as costly as stdout, without a reader in the measurement.
const logDestination = pino.destination({ dest: '/dev/null', sync: true });

if (mode === 'bare') {
  // (d): the same route as /api/health/live on Fastify alone, answering what the API answers: the same body,
  // the same security and CORS headers, the same request id (accepted or generated, echoed in X-Request-Id)
  // and the same two log lines per request. It does each of these the cheapest way Fastify allows (headers
  // resolved once), so the ratio charges Nest and the plugins it uses with all of their cost. bench.ts
  // checks that both answers carry the same headers before measuring.
  const config = loadConfig({
    NODE_ENV: 'development',
    OIDC_ISSUER_URL: issuer,
    DATABASE_URL: databaseUrl,
    PORT: port,
  });
  const corsOrigins = new Set(config.corsOrigins);
  const app = Fastify({
    loggerInstance: createRootLogger(config.logLevel, logDestination),
    genReqId: requestIdOf,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
  });
  app.addHook('onRequest', (request, reply, done) => {
    void reply.headers(STATIC_HEADERS).header('x-request-id', request.id);
    const origin = request.headers.origin;
    if (origin !== undefined && corsOrigins.has(origin))
      void reply.header('access-control-allow-origin', origin);
    done();
  });
  app.get('/api/health/live', (_request, reply) => reply.send({ status: 'ok' }));
  await app.listen({ port: config.port, host: '127.0.0.1' });
} else {
  const config = loadConfig({
    // Everything at its defaults, and the secrets (unused here) at their development values.
    NODE_ENV: 'development',
    OIDC_ISSUER_URL: issuer,
    DATABASE_URL: databaseUrl,
    PORT: port,
    // The URL the load generator's DPoP proofs name (htu), set by bench.ts.
    API_PUBLIC_URL: process.env['API_PUBLIC_URL'],
  });
  await migrateDatabase(config.database);
  // The production configuration: LOG_LEVEL and everything else at their defaults.
  const app = await createApp(config, { logger: false, logDestination });
  const remotes = Number(process.env['BENCH_REMOTES'] ?? 0);
  if (remotes > 0) await seedRegistry(app.get(MikroORM).em.fork(), remotes);
  if (mode === 'api-no-auth') {
    // (b): the same app and handler, with token checking replaced by a fixed caller. Only the bench does this.
    const guard = app.get(JwtAuthGuard);
    const user = {
      sub: 'bench-user',
      username: 'bench',
      email: 'bench@example.test',
      name: 'Bench',
      roles: ['atrium-user'],
      actor: 'bench',
      expiresAt: Number.MAX_SAFE_INTEGER,
      boundKeyThumbprint: null,
    };
    guard.canActivate = (context: ExecutionContext) => {
      context.switchToHttp().getRequest<{ user?: unknown }>().user = user;
      return true;
    };
  }
  await app.listen({ port: config.port, host: '127.0.0.1' });
  // Discovery runs in the background; the orchestrator waits for readiness.
}
process.on('SIGTERM', () => process.exit(0));

/**
 * A registry at scale: `count` remotes with 50 versions each, the newest active. The first 20 are for everyone
 * (no required role); the rest belong to 49 teams (`team-<n>`), as a large organisation's would.
 */
async function seedRegistry(em: EntityManager, count: number): Promise<void> {
  const now = new Date();
  const hash = `sha384-${'A'.repeat(64)}`;
  for (let first = 0; first < count; first += 100) {
    const names = Array.from({ length: Math.min(100, count - first) }, (_, index) => `bench${first + index}`);
    await em.insertMany(
      Remote,
      names.map((name, index) => ({
        name,
        title: `Feature ${name}`,
        path: `/${name}`,
        navOrder: first + index,
        requiredRoles: first + index < 20 ? [] : [`team-${(first + index) % 49}`],
        owner: 'atrium-deployer',
        createdAt: now,
        updatedAt: now,
      })),
    );
    await em.insertMany(
      RemoteVersion,
      names.flatMap((name) =>
        Array.from({ length: 50 }, (_, minor) => ({
          remote: name,
          version: `1.${minor}.0`,
          manifestUrl: `http://127.0.0.1:4100/${name}/1.${minor}.0/mf-manifest.json`,
          integrity: hash,
          manifestIntegrity: hash,
          publishedBy: 'atrium-deployer',
          publishedAt: now,
          active: minor === 49,
        })),
      ),
    );
  }
}
console.log('listening');
