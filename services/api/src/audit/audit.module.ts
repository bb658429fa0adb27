import { MikroOrmMiddleware } from '@mikro-orm/nestjs';
import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { AuditService } from './audit.service.js';

@Module({ controllers: [AuditController], providers: [AuditService], exports: [AuditService] })
export class AuditModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // A request context (EntityManager fork) for this module's routes only; see DatabaseModule.
    consumer.apply(MikroOrmMiddleware).forRoutes(AuditController);
  }
}
