import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { IncomingMessage } from 'node:http';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DomainError, InvalidTokenError } from '../common/errors/domain-errors.js';
import { type AccessTokenClaims, type AuthenticatedUser, toAuthenticatedUser } from './access-token.js';
import { SigningKeySource } from './signing-key-source.js';

/** Name the strategy is registered under with passport. */
export const JWT_STRATEGY = 'jwt';

// RFC 9068 §2.1: access tokens are typed `at+jwt`; this refuses ID tokens and other JWTs signed by the same issuer.
const ACCESS_TOKEN_TYPES = new Set(['at+jwt', 'application/at+jwt']);

function readHeader(rawToken: string): { kid?: unknown; typ?: unknown; alg?: unknown } | undefined {
  const encoded = rawToken.split('.')[0];
  if (!encoded) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    return header !== null && typeof header === 'object' ? header : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Checks bearer access tokens: RS256 only, signed by one of the issuer's published keys, issuer and
 * audience matching the configuration, typed `at+jwt`, with a `sub`.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(@Inject(APP_CONFIG) config: AppConfig, keys: SigningKeySource) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      algorithms: ['RS256'],
      issuer: config.oidcIssuerUrl,
      audience: config.oidcAudience,
      ignoreExpiration: false,
      secretOrKeyProvider: (
        _request: IncomingMessage,
        rawToken: string,
        done: (error: unknown, key?: string | Buffer) => void,
      ) => {
        const header = readHeader(rawToken);
        if (!header) return done(new InvalidTokenError('not a JWT'));
        if (typeof header.typ !== 'string' || !ACCESS_TOKEN_TYPES.has(header.typ.toLowerCase())) {
          return done(new InvalidTokenError('not an access token (typ must be at+jwt)'));
        }
        if (header.alg !== 'RS256') return done(new InvalidTokenError('unsupported signing algorithm'));
        keys.getKey(typeof header.kid === 'string' ? header.kid : undefined).then(
          // jsonwebtoken accepts a KeyObject although the passport-jwt typings only mention string | Buffer.
          (key) => done(null, key as unknown as Buffer),
          (error: unknown) =>
            done(error instanceof DomainError ? error : new InvalidTokenError('signing key lookup failed')),
        );
      },
    });
  }

  validate(claims: AccessTokenClaims): AuthenticatedUser {
    if (typeof claims.sub !== 'string' || claims.sub.length === 0) {
      throw new InvalidTokenError('the token has no subject (sub)');
    }
    return toAuthenticatedUser(claims);
  }
}
