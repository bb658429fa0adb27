import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { RegistryController } from './registry.controller.js';
import { ActiveRemotes } from './active-remotes.js';
import { RegistryService } from './registry.service.js';
import { RolloutController } from './rollout.controller.js';
import { RolloutService } from './rollout.service.js';

@Module({
  imports: [AuditModule],
  controllers: [RegistryController, RolloutController],
  providers: [RegistryService, ActiveRemotes, RolloutService],
  exports: [RegistryService, RolloutService],
})
export class RegistryModule {}
