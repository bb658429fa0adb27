import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { AuditEvent } from './audit-event.entity.js';
import { AuditController } from './audit.controller.js';
import { AuditRetention } from './audit-retention.js';
import { AuditService } from './audit.service.js';

/** The entities this module keeps: registered with the ORM here, listed for migrations in src/entities.ts. */
export const AUDIT_ENTITIES = [AuditEvent];

@Module({
  imports: [MikroOrmModule.forFeature(AUDIT_ENTITIES)],
  controllers: [AuditController],
  providers: [AuditService, AuditRetention],
  exports: [AuditService],
})
export class AuditModule {}
