import { type DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { AccountModule } from './account/account.module.js';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { ProblemFilter } from './common/errors/problem.filter.js';
import type { AppConfig } from './config/app-config.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { DevOverridesModule } from './dev-overrides/dev-overrides.module.js';
import { HealthModule } from './health/health.module.js';
import { MeModule } from './me/me.module.js';
import { RegistryModule } from './registry/registry.module.js';
import { TelemetryModule } from './telemetry/telemetry.module.js';
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
