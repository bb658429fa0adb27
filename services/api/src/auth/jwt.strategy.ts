import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { IncomingMessage } from 'node:http';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DomainError, InvalidTokenError } from '../common/errors/domain-errors.js';
import {
  type AccessTokenClaims,
  type AuthenticatedUser,
  refuseSubject,
  toAuthenticatedUser,
} from './access-token.js';
import { SigningKeySource } from './signing-key-source.js';

/** Name the strategy is registered under with passport. */
export const JWT_STRATEGY = 'jwt';

// RFC 9068 §2.1: access tokens are typed `at+jwt`; this refuses ID, refresh and logout tokens of the same issuer.
const ACCESS_TOKEN_TYPES = new Set(['at+jwt', 'application/at+jwt']);
// RFC 8725 §3.10: keys named by the token itself would let the sender choose the key that verifies it.
const SELF_KEYED_PARAMETERS = ['jku', 'x5u', 'jwk', 'x5c'] as const;
// Keycloak access tokens are 1-3 KB; a far bigger one is not ours and only costs parsing time.
const MAX_TOKEN_LENGTH = 16 * 1024;

interface JoseHeader {
  readonly alg?: unknown;
  readonly typ?: unknown;
  readonly kid?: unknown;
  readonly crit?: unknown;
  readonly [parameter: string]: unknown;
}

function readHeader(rawToken: string): JoseHeader | undefined {
  const dot = rawToken.indexOf('.');
  if (dot <= 0) return undefined;
  try {
    const header: unknown = JSON.parse(Buffer.from(rawToken.slice(0, dot), 'base64url').toString('utf8'));
    return header !== null && typeof header === 'object' && !Array.isArray(header)
      ? (header as JoseHeader)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why a JOSE header is refused before any key is looked up, or undefined when it may proceed. Exported
 * for the unit tests of each rule.
 */
export function refuseHeader(header: JoseHeader, algorithms: readonly string[]): string | undefined {
  if (typeof header.typ !== 'string' || !ACCESS_TOKEN_TYPES.has(header.typ.toLowerCase())) {
    return 'not an access token (typ must be at+jwt)';
  }
  if (typeof header.alg !== 'string' || !algorithms.includes(header.alg)) {
    return 'unsupported signing algorithm';
  }
  // RFC 7515 §4.1.11: we understand no extension, so any critical one means we must refuse.
  if ('crit' in header) return 'unsupported critical header parameters (crit)';
  if (SELF_KEYED_PARAMETERS.some((parameter) => parameter in header)) {
    return 'the token names its own key (jku, x5u, jwk or x5c), which is never trusted';
  }
  if (typeof header.kid !== 'string' || header.kid.length === 0) return 'no key id (kid)';
  return undefined;
}

/**
 * Checks bearer access tokens with passport-jwt: header rules first (typ, algorithm allowlist, no crit,
 * no self-named keys, a kid), then jsonwebtoken verifies the signature with the issuer's key as a
 * `KeyObject`, the exact issuer, the audience, exp and nbf with the configured leeway; `validate` requires
 * `sub` and `exp`.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  constructor(@Inject(APP_CONFIG) config: AppConfig, keys: SigningKeySource) {
    const algorithms = [...config.oidcAlgorithms];
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      algorithms: algorithms as never,
      issuer: config.oidcIssuerUrl,
      audience: config.oidcAudience,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: config.clockToleranceSeconds },
      secretOrKeyProvider: (
        _request: IncomingMessage,
        rawToken: string,
        done: (error: unknown, key?: string | Buffer) => void,
      ) => {
        if (rawToken.length > MAX_TOKEN_LENGTH) return done(new InvalidTokenError('the token is too long'));
        const header = readHeader(rawToken);
        if (!header) return done(new InvalidTokenError('not a JWT'));
        const refusal = refuseHeader(header, algorithms);
        if (refusal) return done(new InvalidTokenError(refusal));
        const kid = header.kid as string;
        const accept = (signingKey: { key: unknown; alg: string | undefined }) => {
          if (signingKey.alg !== undefined && signingKey.alg !== header.alg) {
            return done(new InvalidTokenError('the algorithm does not match the key'));
          }
          // jsonwebtoken accepts a KeyObject although the passport-jwt typings only mention string | Buffer.
          return done(null, signingKey.key as Buffer);
        };
        const cached = keys.cachedKey(kid);
        if (cached) return accept(cached);
        keys
          .getKey(kid)
          .then(accept, (error: unknown) =>
            done(error instanceof DomainError ? error : new InvalidTokenError('signing key lookup failed')),
          );
      },
    });
  }

  validate(claims: AccessTokenClaims): AuthenticatedUser {
    const subjectRefusal = refuseSubject(claims.sub);
    if (subjectRefusal) throw new InvalidTokenError(subjectRefusal);
    if (typeof claims.exp !== 'number') throw new InvalidTokenError('the token has no expiry (exp)');
    return toAuthenticatedUser(claims);
  }
}
