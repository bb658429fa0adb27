import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { DomainError, InvalidTokenError, UnauthenticatedError } from '../common/errors/domain-errors.js';
import { IS_PUBLIC_KEY } from './public.decorator.js';
import { JWT_STRATEGY } from './jwt.strategy.js';

/** Turns a jsonwebtoken refusal into a short description that is safe to send back. */
function describeRefusal(info: unknown): string {
  if (!(info instanceof Error)) return 'the token could not be verified';
  if (info.name === 'TokenExpiredError') return 'the token has expired';
  if (info.name === 'NotBeforeError') return 'the token is not valid yet';
  const message = info.message;
  if (message.includes('issuer invalid')) return 'the token was issued by another issuer';
  if (message.includes('audience invalid')) return 'the token is meant for another audience';
  if (message.includes('invalid algorithm')) return 'unsupported signing algorithm';
  if (message.includes('signature')) return 'the signature does not verify';
  if (message.includes('malformed')) return 'not a JWT';
  return 'the token could not be verified';
}

/** Global guard: every route needs a valid access token unless marked `@Public()`. */
@Injectable()
export class JwtAuthGuard extends AuthGuard(JWT_STRATEGY) {
  constructor(private readonly reflector: Reflector) {
    super();
  }

  override canActivate(context: ExecutionContext) {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [
      context.getHandler(),
      context.getClass(),
    ]);
    return isPublic ? true : super.canActivate(context);
  }

  override handleRequest<TUser>(error: unknown, user: TUser | false, info: unknown): TUser {
    if (error)
      throw error instanceof DomainError ? error : new InvalidTokenError('the token could not be verified');
    if (user) return user;
    if (info instanceof DomainError) throw info;
    if (info instanceof Error && info.message === 'No auth token') throw new UnauthenticatedError();
    throw new InvalidTokenError(describeRefusal(info));
  }
}
