import { Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { AuditRetention } from './audit-retention.js';
import { AuditService } from './audit.service.js';

@Module({
  controllers: [AuditController],
  providers: [AuditService, AuditRetention],
  exports: [AuditService],
})
export class AuditModule {}
