// One server of the benchmark, started pinned to its own core by bench.ts:
//   node bench/bench-server.ts <api|api-no-auth|bare> <port> <issuer> <sqlite-file>
import Fastify from 'fastify';
import type { ExecutionContext } from '@nestjs/common';
import type * as Api from '../src/index.ts';

// The built API (decorators need compiling); typed by its sources.
const { createApp, loadConfig, migrateDatabase, JwtAuthGuard } = (await import(
  new URL('../dist/index.js', import.meta.url).href
)) as typeof Api;

const [mode, port, issuer, sqlite] = process.argv.slice(2);
if (!mode || !port || !issuer || !sqlite)
  throw new Error('usage: bench-server.ts <mode> <port> <issuer> <sqlite>');

if (mode === 'bare') {
  // (d): the same JSON route as /api/health/live, on Fastify alone.
  const app = Fastify({ logger: false });
  app.get('/api/health/live', (_request, reply) => reply.send({ status: 'ok' }));
  await app.listen({ port: Number(port), host: '127.0.0.1' });
} else {
  const config = loadConfig({
    OIDC_ISSUER_URL: issuer,
    DATABASE_URL: `sqlite:${sqlite}`,
    LOG_LEVEL: 'warn',
    PORT: port,
  });
  await migrateDatabase(config.database);
  const app = await createApp(config, { logger: false });
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
    };
    guard.canActivate = (context: ExecutionContext) => {
      context.switchToHttp().getRequest<{ user?: unknown }>().user = user;
      return Promise.resolve(true);
    };
  }
  await app.listen({ port: config.port, host: '127.0.0.1' });
  // Discovery runs in the background; the orchestrator waits for readiness.
}
process.on('SIGTERM', () => process.exit(0));
console.log('listening');
