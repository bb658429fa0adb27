import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { AuthenticatedUser } from './access-token.js';

/** Injects the caller whose access token the global guard accepted. */
export const CurrentUser = createParamDecorator(
  (_data: unknown, context: ExecutionContext): AuthenticatedUser => {
    const request = context.switchToHttp().getRequest<{ user?: AuthenticatedUser }>();
    if (!request.user) {
      // Only reachable if a @Public() route asks for a user: a programming error, hence a 500.
      throw new Error('@CurrentUser() used on a route without authentication');
    }
    return request.user;
  },
);
