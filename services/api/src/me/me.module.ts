import { MikroOrmMiddleware } from '@mikro-orm/nestjs';
import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { MeController } from './me.controller.js';
import { MeService } from './me.service.js';

@Module({ controllers: [MeController], providers: [MeService] })
export class MeModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // A request context (EntityManager fork) for this module's routes only; see DatabaseModule.
    consumer.apply(MikroOrmMiddleware).forRoutes(MeController);
  }
}
