import { MikroORM } from '@mikro-orm/core';
import { MikroOrmModule } from '@mikro-orm/nestjs';
import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { DpopProofVerifier } from './dpop-proof-verifier.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { JwtStrategy } from './jwt.strategy.js';
import { RolesGuard } from './roles.guard.js';
import { proofWindowMs } from './proof-replay-cache.js';
import { PostgresProofReplays, SHARED_PROOF_REPLAYS } from './shared-proof-replays.js';
import { SigningKeySource } from './signing-key-source.js';
import { UsedProof } from './used-proof.entity.js';

/** The entities this module keeps: registered with the ORM here, listed for migrations in src/entities.ts. */
export const AUTH_ENTITIES = [UsedProof];

/**
 * Access-token checking for the whole API: two global guards, in this order (Nest runs global guards in
 * registration order): authentication, then `@Roles()`. Exports the key source for readiness. On PostgreSQL
 * (one database, any number of replicas) accepted DPoP proofs are recorded for every replica; a SQLite API is
 * one process and keeps them in memory only.
 */
@Module({
  imports: [PassportModule, MikroOrmModule.forFeature(AUTH_ENTITIES)],
  providers: [
    SigningKeySource,
    {
      provide: SHARED_PROOF_REPLAYS,
      inject: [APP_CONFIG, MikroORM],
      useFactory: (config: AppConfig, orm: MikroORM) =>
        config.database.driver === 'postgresql'
          ? new PostgresProofReplays(
              orm,
              proofWindowMs(config.dpopProofMaxAgeSeconds, config.clockToleranceSeconds),
            )
          : null,
    },
    DpopProofVerifier,
    JwtStrategy,
    JwtAuthGuard,
    RolesGuard,
    { provide: APP_GUARD, useExisting: JwtAuthGuard },
    { provide: APP_GUARD, useExisting: RolesGuard },
  ],
  exports: [SigningKeySource, JwtAuthGuard],
})
export class AuthModule {}
