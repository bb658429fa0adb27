import { Controller, Get, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { Public, SigningKeySource } from '../auth/index.js';
import { DatabaseHealth } from '../database/index.js';
import { ApiDocument, ApiPublic } from '../common/openapi/api-docs.decorators.js';

const livenessSchema = z.object({ status: z.literal('ok') }).meta({ id: 'Liveness' });

const upDown = z.enum(['up', 'down']);
/** Readiness body; `checks` says which dependency is missing without exposing connection details. */
const readinessSchema = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({ database: upDown, issuer: upDown }),
  })
  .meta({ id: 'Readiness' });

export type ReadinessDocument = z.output<typeof readinessSchema>;

@Public()
@ApiPublic()
@ApiTags('health')
@Controller('health')
export class HealthController {
  constructor(
    private readonly database: DatabaseHealth,
    private readonly keys: SigningKeySource,
  ) {}

  /** Liveness: the process answers. Never depends on anything else, or orchestrators would restart a healthy process. */
  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process answers (for orchestrators)' })
  @ApiDocument(200, livenessSchema, 'the process is alive')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: the database answers and the issuer's keys are loaded. */
  @Get('ready')
  @ApiOperation({ summary: "Readiness: the database answers and the issuer's keys are loaded" })
  @ApiResponse({ status: 200, description: 'ready to serve', standardSchema: readinessSchema })
  @ApiResponse({
    status: 503,
    description: 'not ready (Retry-After: 5); `checks` names what is down',
    standardSchema: readinessSchema,
  })
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
