import { type DynamicModule, Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import type { DatabaseTarget } from '../config/app-config.js';
import { DatabaseHealth } from './database-health.js';
import { ormOptions } from './orm-options.js';

/**
 * MikroORM through @mikro-orm/nestjs (works with v7 and Nest 12): its middleware opens a RequestContext
 * per request, so the injected EntityManager is a fresh fork for every request.
 */
@Module({})
export class DatabaseModule {
  static forRoot(database: DatabaseTarget): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [MikroOrmModule.forRoot({ ...ormOptions(database), registerRequestContext: true })],
      providers: [DatabaseHealth],
      exports: [DatabaseHealth],
    };
  }
}
