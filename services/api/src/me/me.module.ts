import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { AccountModule } from '../account/index.js';
import { AuditModule } from '../audit/index.js';
import { MeController } from './me.controller.js';
import { MeService } from './me.service.js';
import { UserProfile } from './user-profile.entity.js';

/** The entities this module keeps: registered with the ORM here, listed for migrations in src/entities.ts. */
export const ME_ENTITIES = [UserProfile];

@Module({
  imports: [MikroOrmModule.forFeature(ME_ENTITIES), AccountModule, AuditModule],
  controllers: [MeController],
  providers: [MeService],
})
export class MeModule {}
