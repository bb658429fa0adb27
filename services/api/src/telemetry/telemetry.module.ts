import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { RegistryModule } from '../registry/index.js';
import { RolloutModule } from '../rollout/index.js';
import { CanaryReporter } from './canary-reporter.entity.js';
import { RemoteHealth } from './remote-health.entity.js';
import { TelemetryQuota } from './telemetry-quota.entity.js';
import { TelemetryController } from './telemetry.controller.js';
import { TelemetryService } from './telemetry.service.js';

/** The entities this module keeps: registered with the ORM here, listed for migrations in src/entities.ts. */
export const TELEMETRY_ENTITIES = [RemoteHealth, CanaryReporter, TelemetryQuota];

@Module({
  imports: [MikroOrmModule.forFeature(TELEMETRY_ENTITIES), RegistryModule, RolloutModule],
  controllers: [TelemetryController],
  providers: [TelemetryService],
})
export class TelemetryModule {}
