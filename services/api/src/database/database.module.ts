import { type DynamicModule, Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import type { DatabaseTarget } from '../config/index.js';
import { DatabaseHealth } from './database-health.js';
import { DatabasePoolMetrics } from './database-pool-metrics.js';
import { ormOptions } from './orm-options.js';

/**
 * MikroORM through @mikro-orm/nestjs (works with v7 and Nest 12). Its request-context middleware is off:
 * the controllers that use the database open the context with `RequestContextInterceptor`, so the
 * injected EntityManager is a fresh fork per request there, and routes that never touch it (liveness,
 * docs) skip the fork, its AsyncLocalStorage scope and Nest's middleware layer. Entities: each module registers
 * its own (`MikroOrmModule.forFeature`), and `autoLoadEntities` gives the ORM all of them; this module imports
 * none.
 */
@Module({})
export class DatabaseModule {
  static forRoot(database: DatabaseTarget): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [
        MikroOrmModule.forRoot({
          ...ormOptions(database),
          autoLoadEntities: true,
          registerRequestContext: false,
        }),
      ],
      providers: [DatabaseHealth, DatabasePoolMetrics],
      exports: [DatabaseHealth],
    };
  }
}
