import { SetMetadata } from '@nestjs/common';

export const REQUIRED_ROLES_KEY = 'atrium:requiredRoles';

/**
 * Restricts a route or controller to callers whose token carries every listed realm role
 * (`realm_access.roles`); others get 403 insufficient_scope.
 */
export const Roles = (...roles: string[]): MethodDecorator & ClassDecorator =>
  SetMetadata(REQUIRED_ROLES_KEY, roles);
