import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { RegistryController } from './registry.controller.js';
import { ActiveRemotes } from './active-remotes.js';
import { RegistryService } from './registry.service.js';

@Module({
  imports: [AuditModule],
  controllers: [RegistryController],
  providers: [RegistryService, ActiveRemotes],
})
export class RegistryModule {}
