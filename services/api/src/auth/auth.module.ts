import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { JwtAuthGuard } from './jwt-auth.guard.js';
import { JwtStrategy } from './jwt.strategy.js';
import { SigningKeySource } from './signing-key-source.js';

/** Access-token checking for the whole API (global guard); exports the key source for readiness. */
@Module({
  imports: [PassportModule],
  providers: [SigningKeySource, JwtStrategy, { provide: APP_GUARD, useClass: JwtAuthGuard }],
  exports: [SigningKeySource],
})
export class AuthModule {}
