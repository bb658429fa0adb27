import { MikroOrmMiddleware } from '@mikro-orm/nestjs';
import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module.js';
import { RegistryController } from './registry.controller.js';
import { RegistryService } from './registry.service.js';

@Module({ imports: [AuditModule], controllers: [RegistryController], providers: [RegistryService] })
export class RegistryModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // A request context (EntityManager fork) for this module's routes only; see DatabaseModule.
    consumer.apply(MikroOrmMiddleware).forRoutes(RegistryController);
  }
}
