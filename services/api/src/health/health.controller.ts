import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { Public } from '../auth/public.decorator.js';
import { SigningKeySource } from '../auth/signing-key-source.js';
import { DatabaseHealth } from '../database/database-health.js';

/** Readiness body; `checks` says which dependency is missing without exposing connection details. */
export interface ReadinessDocument {
  status: 'ready' | 'not_ready';
  checks: { database: 'up' | 'down'; issuer: 'up' | 'down' };
}

@Public()
@Controller('health')
export class HealthController {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly keys: SigningKeySource,
  ) {}

  /** Liveness: the process answers. Never depends on anything else, or orchestrators would restart a healthy process. */
  @Get('live')
  @HttpCode(200)
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: the database answers and the issuer's keys are loaded. */
  @Get('ready')
  async ready(@Res({ passthrough: true }) reply: FastifyReply): Promise<ReadinessDocument> {
    const database = await this.database.check();
    const issuer = this.keys.state();
    const ready = database.up && issuer.ready;
    void reply.status(ready ? 200 : 503);
    if (!ready) void reply.header('Retry-After', '5');
    return {
      status: ready ? 'ready' : 'not_ready',
      checks: { database: database.up ? 'up' : 'down', issuer: issuer.ready ? 'up' : 'down' },
    };
  }
}
