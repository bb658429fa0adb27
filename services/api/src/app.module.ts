import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AccountModule } from './account/index.js';
import { AuditModule } from './audit/index.js';
import { AuthModule } from './auth/index.js';
import { type AppConfig, ConfigModule } from './config/index.js';
import { DatabaseModule } from './database/index.js';
import { DevOverridesModule } from './dev-overrides/index.js';
import { HealthModule } from './health/index.js';
import { MeModule } from './me/index.js';
import { RegistryModule } from './registry/index.js';
import { RolloutModule } from './rollout/index.js';
import { TelemetryModule } from './telemetry/index.js';
import { ProblemFilter } from './common/errors/problem.filter.js';
import { SchemaValidationPipe } from './common/validation/schema-validation.pipe.js';

/** Root module; built from an already validated configuration so that tests can boot it with their own. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(config.database),
        AuthModule,
        HealthModule,
        MeModule,
        RegistryModule,
        RolloutModule,
        TelemetryModule,
        AuditModule,
        AccountModule,
        DevOverridesModule,
      ],
      providers: [
        { provide: APP_FILTER, useClass: ProblemFilter },
        { provide: APP_PIPE, useClass: SchemaValidationPipe },
      ],
    };
  }
}
