import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { DpopProofVerifier } from './dpop-proof-verifier.js';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { JwtStrategy } from './jwt.strategy.js';
import { RolesGuard } from './roles.guard.js';
import { SigningKeySource } from './signing-key-source.js';

/**
 * Access-token checking for the whole API: two global guards, in this order (Nest runs global guards in
 * registration order): authentication, then `@Roles()`. Exports the key source for readiness.
 */
@Module({
  imports: [PassportModule],
  providers: [
    SigningKeySource,
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
