import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import {
  DomainError,
  InvalidRequestError,
  InvalidTokenError,
  UnauthenticatedError,
} from '../common/errors/domain-errors.js';
import type { AuthenticatedUser } from './access-token.js';
import { IS_PUBLIC_KEY } from './public.decorator.js';
import { JWT_STRATEGY } from './jwt.strategy.js';
import { RouteMetadata } from './route-metadata.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

// RFC 6750 §2.1: b64token after exactly one space.
const BEARER_CREDENTIALS = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;
const BEARER_SCHEME = /^Bearer(\s|$)/i;

type AuthRequest = FastifyRequest & { user?: AuthenticatedUser };

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
  if (message.includes('malformed') || message.includes('invalid token')) return 'not a JWT';
  return 'the token could not be verified';
}

function carriesTokenOutsideHeader(request: FastifyRequest): 'query string' | 'body' | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  if (query && typeof query === 'object' && 'access_token' in query) return 'query string';
  const body = request.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && !Array.isArray(body) && 'access_token' in body) return 'body';
  return undefined;
}

/**
 * Global guard: every route needs a valid access token unless marked `@Public()`. The token is read from
 * the Authorization header only (RFC 6750 §2.1); a token in the query or body is refused as
 * invalid_request rather than silently ignored, so a leaking client learns about it.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard(JWT_STRATEGY) {
  private readonly cache = new VerifiedTokenCache();
  private readonly isPublic: RouteMetadata<boolean>;

  constructor(reflector: Reflector) {
    super();
    this.isPublic = new RouteMetadata(reflector, IS_PUBLIC_KEY);
  }

  /** Synchronous for public routes and cached tokens; only a token seen for the first time is awaited. */
  override canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (this.isPublic.of(context)) return true;
    const request = context.switchToHttp().getRequest<AuthRequest>();
    const misplaced = carriesTokenOutsideHeader(request);
    if (misplaced) {
      throw new InvalidRequestError(
        `access tokens are accepted in the Authorization header only, not the ${misplaced}`,
      );
    }
    const header = request.headers.authorization;
    if (header === undefined || header === '' || !BEARER_SCHEME.test(header))
      throw new UnauthenticatedError();
    const match = BEARER_CREDENTIALS.exec(header);
    if (!match) throw new InvalidRequestError('the Authorization header must be "Bearer <token>"');
    const token = match[1] as string;
    const cached = this.cache.get(token, Math.floor(Date.now() / 1000));
    if (cached) {
      request.user = cached;
      return true;
    }
    return this.verify(context, request, token);
  }

  private async verify(context: ExecutionContext, request: AuthRequest, token: string): Promise<boolean> {
    const accepted = (await super.canActivate(context)) as boolean;
    if (accepted && request.user) this.cache.set(token, request.user);
    return accepted;
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
