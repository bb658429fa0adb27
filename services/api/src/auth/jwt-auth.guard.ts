import { type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import {
  type AuthScheme,
  DpopRequiredError,
  InvalidRequestError,
  InvalidTokenError,
  UnauthenticatedError,
} from './auth.errors.js';
import { DomainError } from '../common/errors/domain-errors.js';
import type { AuthenticatedUser } from './access-token.js';
import { DpopProofVerifier } from './dpop-proof-verifier.js';
import { IS_PUBLIC_KEY } from './public.decorator.js';
import { JWT_STRATEGY, readAuthorization, verifiedWith } from './jwt.strategy.js';
import { RouteMetadata } from './route-metadata.js';
import { SigningKeySource } from './signing-key-source.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

const AUTH_SCHEME = /^(Bearer|DPoP)(\s|$)/i;

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
 *
 * Two schemes: `Bearer` for unbound tokens (machine clients), `DPoP` for tokens bound to a client key
 * (`cnf.jkt`, RFC 9449), which need a valid `DPoP` proof on every request. A bound token sent as Bearer is
 * refused (dpop_required), and so is an unbound token sent as DPoP. The verified-token cache only spares
 * the token's signature check; the proof is never cached.
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard(JWT_STRATEGY) {
  private readonly cache = new VerifiedTokenCache();
  private readonly isPublic: RouteMetadata<boolean>;
  private readonly isPublished: SigningKeySource['isPublished'];

  constructor(
    reflector: Reflector,
    keys: SigningKeySource,
    private readonly proofs: DpopProofVerifier,
  ) {
    super();
    this.isPublic = new RouteMetadata(reflector, IS_PUBLIC_KEY);
    this.isPublished = keys.isPublished.bind(keys);
  }

  /** Synchronous for public routes and cached bearer tokens; tokens seen for the first time and proofs are awaited. */
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
    const scheme = header === undefined ? undefined : AUTH_SCHEME.exec(header)?.[1];
    if (scheme === undefined) throw new UnauthenticatedError();
    const credentials = readAuthorization(header);
    if (!credentials) {
      const isDpop = scheme.toLowerCase() === 'dpop';
      throw new InvalidRequestError(
        `the Authorization header must be "${isDpop ? 'DPoP' : 'Bearer'} <token>"`,
        isDpop ? 'DPoP' : 'Bearer',
      );
    }
    const cached = this.cache.get(credentials.token, Math.floor(Date.now() / 1000), this.isPublished);
    if (cached) return this.admit(request, credentials.scheme, credentials.token, cached.user);
    return this.verify(context, request, credentials.scheme, credentials.token);
  }

  private async verify(
    context: ExecutionContext,
    request: AuthRequest,
    scheme: AuthScheme,
    token: string,
  ): Promise<boolean> {
    let accepted: boolean;
    try {
      accepted = (await super.canActivate(context)) as boolean;
    } catch (error) {
      throw error instanceof InvalidTokenError ? error.inScheme(scheme) : error;
    }
    const user = request.user;
    const verifiedBy = verifiedWith.get(request);
    // Passport set the user; it only counts once the binding rules below have passed.
    delete request.user;
    if (!accepted || !user || !verifiedBy) return false;
    this.cache.set(token, { user, ...verifiedBy });
    return this.admit(request, scheme, token, user);
  }

  /** The binding rules, on every request, cached token or not. */
  private admit(
    request: AuthRequest,
    scheme: AuthScheme,
    token: string,
    user: AuthenticatedUser,
  ): boolean | Promise<boolean> {
    if (user.boundKeyThumbprint === null) {
      if (scheme === 'DPoP') {
        throw new InvalidTokenError('the token is not DPoP-bound: send it as Bearer', 'DPoP');
      }
      request.user = user;
      return true;
    }
    if (scheme === 'Bearer') throw new DpopRequiredError();
    return this.proofs
      .verify(request.headers['dpop'], {
        method: request.method,
        url: request.url,
        accessToken: token,
        jkt: user.boundKeyThumbprint,
      })
      .then(() => {
        request.user = user;
        return true;
      });
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
