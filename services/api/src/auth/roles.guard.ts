import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InsufficientScopeError } from '../common/errors/domain-errors.js';
import type { AuthenticatedUser } from './access-token.js';
import { REQUIRED_ROLES_KEY } from './roles.decorator.js';

/** Global guard after {@link JwtAuthGuard}: enforces `@Roles()` against the verified token's realm roles. */
@Injectable()
export class RolesGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const required = this.reflector.getAllAndOverride<string[] | undefined>(REQUIRED_ROLES_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!required || required.length === 0) return true;
    const user = context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>().user;
    // @Roles on a @Public route is a programming error; refusing is the safe reading of it.
    if (!user || !required.every((role) => user.roles.includes(role))) {
      throw new InsufficientScopeError(required);
    }
    return true;
  }
}
