import { Body, Controller, Delete, Get, Post, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { z } from 'zod';
import { type AuthenticatedUser, CurrentUser, DEVELOPER_ROLE, Roles } from '../auth/index.js';
import { RequestContextInterceptor } from '../database/index.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import { DevOverridesService } from './dev-overrides.service.js';
import {
  type DevOverride,
  type DevOverrideApprovals,
  type DevOverrideRecord,
  devOverrideApprovalsSchema,
  devOverrideRecordSchema,
  devOverrideSchema,
} from './dev-overrides.schemas.js';

/**
 * Dev overrides: a developer's browser session loads a remote from a dev server instead of its active release.
 * The API refuses one to anyone without the developer role, from an origin it does not allow or that is the
 * platform's own, and for a remote only administrators may see; it approves the others for the caller's sign-in
 * session, recorded in the audit log before the shell runs any of the dev server's code, and tells the shell at
 * every load which overrides that session may apply (dev-overrides.service.ts).
 */
@ApiTags('dev-overrides')
@Controller('dev-overrides')
@UseInterceptors(RequestContextInterceptor)
@Roles(DEVELOPER_ROLE)
export class DevOverridesController {
  constructor(private readonly devOverrides: DevOverridesService) {}

  @Post()
  @ApiOperation({
    summary:
      "Approve, for the caller's sign-in session, loading a remote from a dev server, and record it in the audit log (role atrium-developer, allowed origins only)",
  })
  @ApiAuthenticated('validation_failed', 'invalid_token', 'insufficient_scope', 'dev_override_refused')
  @ApiDocument(201, devOverrideRecordSchema, 'the override was approved and recorded in the audit log')
  record(
    @CurrentUser() user: AuthenticatedUser,
    @Body({ schema: devOverrideSchema }) body: DevOverride,
  ): Promise<DevOverrideRecord> {
    return this.devOverrides.approve(user, body);
  }

  @Get()
  @ApiOperation({
    summary:
      "The dev overrides approved for the caller's sign-in session that still pass the rules: the only ones the shell applies (role atrium-developer)",
  })
  @ApiAuthenticated('invalid_token', 'insufficient_scope')
  @ApiDocument(200, devOverrideApprovalsSchema, "the approvals of the caller's session")
  async approvals(@CurrentUser() user: AuthenticatedUser): Promise<DevOverrideApprovals> {
    return { overrides: await this.devOverrides.approvals(user) };
  }

  @Delete()
  @ApiOperation({
    summary:
      "Withdraw every dev override approved for the caller's sign-in session, recorded in the audit log (role atrium-developer)",
  })
  @ApiAuthenticated('invalid_token', 'insufficient_scope')
  @ApiDocument(204, z.null(), 'no dev override is approved for this session any more')
  async reset(@CurrentUser() user: AuthenticatedUser): Promise<void> {
    await this.devOverrides.reset(user);
  }
}
