import { EntityManager } from '@mikro-orm/core';
import { Body, Controller, Inject, Post, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuditService } from '../audit/audit.service.js';
import type { AuthenticatedUser } from '../auth/access-token.js';
import { CurrentUser } from '../auth/current-user.decorator.js';
import { DEVELOPER_ROLE } from '../auth/role-names.js';
import { Roles } from '../auth/roles.decorator.js';
import { DevOverrideRefusedError } from '../common/errors/domain-errors.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { RequestContextInterceptor } from '../database/request-context.interceptor.js';
import { devOverrideOriginAllowed } from './dev-override-rules.js';
import {
  type DevOverride,
  type DevOverrideRecord,
  devOverrideRecordSchema,
  devOverrideSchema,
} from './dev-overrides.schemas.js';

/**
 * Dev overrides: a developer's browser session loads a remote from a dev server instead of its active release.
 * The override itself lives in that session only; the API's part is to refuse it to anyone without the
 * developer role or for an origin it does not allow, and to record each one in the audit log before the shell
 * runs any of the dev server's code.
 */
@ApiTags('dev-overrides')
@Controller('dev-overrides')
@UseInterceptors(RequestContextInterceptor)
export class DevOverridesController {
  constructor(
    private readonly em: EntityManager,
    private readonly audit: AuditService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @Roles(DEVELOPER_ROLE)
  @ApiOperation({
    summary:
      "Record that the caller's session loads a remote from a dev server (role atrium-developer, allowed origins only)",
  })
  @ApiAuthenticated('validation_failed', 'invalid_token', 'insufficient_scope', 'dev_override_refused')
  @ApiDocument(201, devOverrideRecordSchema, 'the override was allowed and recorded in the audit log')
  async record(
    @CurrentUser() user: AuthenticatedUser,
    @Body({ schema: devOverrideSchema }) body: DevOverride,
  ): Promise<DevOverrideRecord> {
    const origins = this.config.devOverrideOrigins;
    if (!devOverrideOriginAllowed(body.url, origins)) throw new DevOverrideRefusedError(body.url, origins);
    const recordedAt = new Date();
    await this.em.transactional((em) => {
      this.audit.record(
        em,
        {
          actor: user.actor,
          action: 'dev.override.activated',
          // As the shell's address names it: <remote>@<dev server>.
          target: `${body.remote}@${body.url}`,
          details: { remote: body.remote, url: body.url },
        },
        recordedAt,
      );
      return Promise.resolve();
    });
    return { remote: body.remote, url: body.url, actor: user.actor, recordedAt: recordedAt.toISOString() };
  }
}
