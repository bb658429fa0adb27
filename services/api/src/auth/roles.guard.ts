import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InsufficientScopeError } from './auth.errors.js';
import type { AuthenticatedUser } from './access-token.js';
import { REQUIRED_ROLES_KEY } from './roles.decorator.js';
import { RouteMetadata } from './route-metadata.js';

/** Global guard after {@link JwtAuthGuard}: enforces `@Roles()` against the verified token's realm roles. */
@Injectable()
export class RolesGuard implements CanActivate {
  private readonly requiredRoles: RouteMetadata<string[]>;

  constructor(reflector: Reflector) {
    this.requiredRoles = new RouteMetadata(reflector, REQUIRED_ROLES_KEY);
  }

  canActivate(context: ExecutionContext): boolean {
    const required = this.requiredRoles.of(context);
    if (!required || required.length === 0) return true;
    const user = context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>().user;
    // @Roles on a @Public route is a programming error; refusing is the safe reading of it.
    if (!user || !required.every((role) => user.roles.includes(role))) {
      throw new InsufficientScopeError(required, user?.boundKeyThumbprint ? 'DPoP' : 'Bearer');
    }
    return true;
  }
}
