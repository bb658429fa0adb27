import { Global, Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { AuditModule } from '../audit/index.js';
import { CANARIES, RegistryModule } from '../registry/index.js';
import { CanaryJudge } from './canary-judge.js';
import { RolloutController } from './rollout.controller.js';
import { RemoteRollout } from './rollout.entity.js';
import { RolloutService } from './rollout.service.js';
import { ServedCanaries } from './served-canaries.js';

/** The entities this module keeps: registered with the ORM here, listed for migrations in src/entities.ts. */
export const ROLLOUT_ENTITIES = [RemoteRollout];

/**
 * Progressive delivery: canaries (rollouts), who gets them (cohorts) and the automatic rollback. Global for one
 * thing only, CANARIES: the registry, which this module builds on, serves the canaries through it without
 * importing this module.
 */
@Global()
@Module({
  imports: [MikroOrmModule.forFeature(ROLLOUT_ENTITIES), RegistryModule, AuditModule],
  controllers: [RolloutController],
  providers: [
    RolloutService,
    CanaryJudge,
    ServedCanaries,
    { provide: CANARIES, useExisting: ServedCanaries },
  ],
  exports: [CanaryJudge, CANARIES],
})
export class RolloutModule {}
