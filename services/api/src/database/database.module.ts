import { type DynamicModule, Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import type { DatabaseTarget } from '../config/app-config.js';
import { DatabaseHealth } from './database-health.js';
import { ormOptions } from './orm-options.js';

/**
 * MikroORM through @mikro-orm/nestjs (works with v7 and Nest 12). Its request-context middleware is not
 * applied to every route: each module whose routes use the database applies it to its own controllers
 * (`MikroOrmMiddleware`), so the injected EntityManager is a fresh fork per request there, and routes
 * that never touch the database (liveness, docs) skip the fork and its AsyncLocalStorage scope.
 */
@Module({})
export class DatabaseModule {
  static forRoot(database: DatabaseTarget): DynamicModule {
    return {
      module: DatabaseModule,
      global: true,
      imports: [MikroOrmModule.forRoot({ ...ormOptions(database), registerRequestContext: false })],
      providers: [DatabaseHealth],
      exports: [DatabaseHealth],
    };
  }
}
