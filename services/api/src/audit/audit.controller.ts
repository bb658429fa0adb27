import { Controller, Get, Query, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ADMIN_ROLE, Roles } from '../auth/index.js';
import { RequestContextInterceptor } from '../database/index.js';
import { ApiAuthenticated, ApiDocument } from '../common/openapi/api-docs.decorators.js';
import { type AuditQuery, auditPageSchema, auditQuerySchema } from './audit.schemas.js';
import { type AuditPage, AuditService } from './audit.service.js';

@ApiTags('audit')
@Controller('audit')
@UseInterceptors(RequestContextInterceptor)
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @Roles(ADMIN_ROLE)
  @ApiOperation({
    summary: 'Audit events, newest first, a page at a time (keyset: pass nextCursor back as before)',
  })
  @ApiAuthenticated('validation_failed', 'invalid_token', 'insufficient_scope')
  @ApiDocument(200, auditPageSchema, 'one page of audit events')
  list(@Query({ schema: auditQuerySchema }) query: AuditQuery): Promise<AuditPage> {
    return this.audit.list(query);
  }
}
