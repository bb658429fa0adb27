import { Body, Controller, Get, Headers, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ADMIN_ROLE, type AuthenticatedUser, CurrentUser, Roles } from '../auth/index.js';
import { RequestContextInterceptor } from '../database/index.js';
import { remoteNameParamSchema } from '../registry/index.js';
import { PayloadTooLargeError } from '../common/errors/domain-errors.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import {
  healthQuerySchema,
  remoteHealthSchema,
  type RemoteHealthDoc,
  type TelemetryBatch,
  telemetryBatchSchema,
  type TelemetryReceipt,
  telemetryReceiptSchema,
} from './telemetry.schemas.js';
import { TELEMETRY_BODY_LIMIT_BYTES } from './telemetry-rules.js';
import { TelemetryService } from './telemetry.service.js';

@ApiTags('telemetry')
@Controller()
@UseInterceptors(RequestContextInterceptor)
export class TelemetryController {
  constructor(private readonly telemetry: TelemetryService) {}

  @Post('telemetry')
  @ApiOperation({
    summary:
      "Field telemetry from the shell: loads, failures, render times and web vitals per remote version (a person signed in through the shell, SHELL_CLIENTS; one report per version, one page's worth each; 16 KiB, TELEMETRY_REPORTS_PER_MINUTE per person)",
  })
  @ApiAuthenticated(
    'validation_failed',
    'invalid_token',
    'personal_session_required',
    'payload_too_large',
    'rate_limited',
  )
  @ApiDocument(202, telemetryReceiptSchema, 'added to the per-minute aggregates')
  record(
    @CurrentUser() user: AuthenticatedUser,
    @Headers('content-length') contentLength: string | undefined,
    @Body({ schema: telemetryBatchSchema }) body: TelemetryBatch,
  ): Promise<TelemetryReceipt> {
    // Fastify has read at most the API-wide limit; telemetry's own, smaller bound is checked on what came.
    if (Number(contentLength ?? JSON.stringify(body).length) > TELEMETRY_BODY_LIMIT_BYTES) {
      throw new PayloadTooLargeError(TELEMETRY_BODY_LIMIT_BYTES, 'A telemetry batch');
    }
    return this.telemetry.record(user, body);
  }

  @Get('admin/remotes/:name/health')
  @Roles(ADMIN_ROLE)
  @ApiOperation({ summary: "A remote's field health per version per minute (administrators)" })
  @ApiAuthenticated('validation_failed', 'invalid_token', 'insufficient_scope')
  @ApiDocument(200, remoteHealthSchema, 'per-minute aggregates of each version reported in the window')
  health(
    @Param('name', { schema: remoteNameParamSchema }) name: string,
    @Query('minutes', { schema: healthQuerySchema }) minutes: number,
  ): Promise<RemoteHealthDoc> {
    return this.telemetry.health(name, minutes);
  }
}
