import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/index.js';
import { DevOverridesController } from './dev-overrides.controller.js';
import { DevOverridesService } from './dev-overrides.service.js';

@Module({ imports: [AuditModule], controllers: [DevOverridesController], providers: [DevOverridesService] })
export class DevOverridesModule {}
