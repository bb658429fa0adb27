import { Module } from '@nestjs/common';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { AuditModule } from '../audit/index.js';
import { ActiveRemotes } from './active-remotes.js';
import { RegistryController } from './registry.controller.js';
import { RegistryService } from './registry.service.js';
import { RemoteVersion } from './remote-version.entity.js';
import { Remote } from './remote.entity.js';
import { SharedDependencyGate } from './shared-dependency-gate.js';

/** The entities this module keeps: registered with the ORM here, listed for migrations in src/entities.ts. */
export const REGISTRY_ENTITIES = [Remote, RemoteVersion];

/**
 * The remotes, their versions and which one is active, and what each person is served (`/api/remotes`). The
 * canaries it serves come from the rollout module, through CANARIES (canaries.ts).
 */
@Module({
  imports: [MikroOrmModule.forFeature(REGISTRY_ENTITIES), AuditModule],
  controllers: [RegistryController],
  providers: [RegistryService, ActiveRemotes, SharedDependencyGate],
  exports: [RegistryService, ActiveRemotes, SharedDependencyGate],
})
export class RegistryModule {}
