import { Module } from '@nestjs/common';
import { RegistryModule } from '../registry/registry.module.js';
import { TelemetryController } from './telemetry.controller.js';
import { TelemetryService } from './telemetry.service.js';

@Module({ imports: [RegistryModule], controllers: [TelemetryController], providers: [TelemetryService] })
export class TelemetryModule {}
