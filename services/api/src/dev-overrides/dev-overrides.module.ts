import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { DevOverridesController } from './dev-overrides.controller.js';

@Module({ imports: [AuditModule], controllers: [DevOverridesController] })
export class DevOverridesModule {}
