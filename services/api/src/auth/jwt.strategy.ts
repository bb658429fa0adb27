import { Inject, Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { IncomingMessage } from 'node:http';
import { Strategy } from 'passport-jwt';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { DomainError } from '../common/errors/domain-errors.js';
import { InvalidTokenError } from './auth.errors.js';
import {
  type AccessTokenClaims,
  type AuthenticatedUser,
  boundThumbprintOf,
  refuseSubject,
  toAuthenticatedUser,
} from './access-token.js';
import { type SigningKey, SigningKeySource } from './signing-key-source.js';

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

/**
 * The key each request's token was verified with, so that the guard can tie its cache entry to that key
 * (a request object is the key; the entry disappears with the request).
 */
export const verifiedWith = new WeakMap<object, { readonly kid: string; readonly signingKey: SigningKey }>();

// RFC 6750 §2.1 and RFC 9449 §7.1: the scheme, one space, a token68.
const AUTHORIZATION = /^(Bearer|DPoP) ([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * The scheme and token of an `Authorization: Bearer <token>` or `Authorization: DPoP <token>` header, or
 * undefined when the header is neither.
 */
export function readAuthorization(
  header: string | undefined,
): { scheme: 'Bearer' | 'DPoP'; token: string } | undefined {
  const match = header === undefined ? null : AUTHORIZATION.exec(header);
  if (!match) return undefined;
  const scheme = (match[1] as string).toLowerCase() === 'dpop' ? 'DPoP' : 'Bearer';
  return { scheme, token: match[2] as string };
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
 * Checks access tokens (sent as Bearer or DPoP; the proof is the guard's business) with passport-jwt:
 * header rules first (typ, algorithm allowlist, no crit, no self-named keys, a kid), then jsonwebtoken
 * verifies the signature with the issuer's key as a `KeyObject`, the exact issuer, the audience, exp and
 * nbf with the configured leeway; `validate` requires `sub`, `exp`, an `iat` not in the future, a client
 * (`azp`) from `OIDC_ALLOWED_CLIENTS`, and reads the key binding (`cnf.jkt`).
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, JWT_STRATEGY) {
  private readonly allowedClients: ReadonlySet<string>;
  private readonly dpopClients: ReadonlySet<string>;
  private readonly clockToleranceSeconds: number;

  constructor(@Inject(APP_CONFIG) config: AppConfig, keys: SigningKeySource) {
    const algorithms = [...config.oidcAlgorithms];
    super({
      jwtFromRequest: (request: { headers: { authorization?: string } }) =>
        readAuthorization(request.headers.authorization)?.token ?? null,
      algorithms: algorithms as never,
      issuer: config.oidcIssuerUrl,
      audience: config.oidcAudience,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: config.clockToleranceSeconds },
      secretOrKeyProvider: (
        request: IncomingMessage,
        rawToken: string,
        done: (error: unknown, key?: string | Buffer) => void,
      ) => {
        if (rawToken.length > MAX_TOKEN_LENGTH) return done(new InvalidTokenError('the token is too long'));
        const header = readHeader(rawToken);
        if (!header) return done(new InvalidTokenError('not a JWT'));
        const refusal = refuseHeader(header, algorithms);
        if (refusal) return done(new InvalidTokenError(refusal));
        const kid = header.kid as string;
        const accept = (signingKey: SigningKey) => {
          if (signingKey.alg !== undefined && signingKey.alg !== header.alg) {
            return done(new InvalidTokenError('the algorithm does not match the key'));
          }
          verifiedWith.set(request, { kid, signingKey });
          // jsonwebtoken accepts a KeyObject although the passport-jwt typings only mention string | Buffer.
          return done(null, signingKey.key as unknown as Buffer);
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
    this.allowedClients = new Set(config.allowedClients);
    this.dpopClients = new Set(config.dpopRequiredClients);
    this.clockToleranceSeconds = config.clockToleranceSeconds;
  }

  validate(claims: AccessTokenClaims): AuthenticatedUser {
    const subjectRefusal = refuseSubject(claims.sub);
    if (subjectRefusal) throw new InvalidTokenError(subjectRefusal);
    if (typeof claims.exp !== 'number') throw new InvalidTokenError('the token has no expiry (exp)');
    // RFC 9068 §2.2 requires iat. One from the future means a broken or forged issuer clock: such a token
    // would outlive what its lifespan suggests, so it is refused beyond the same leeway as exp and nbf.
    if (typeof claims.iat !== 'number') throw new InvalidTokenError('the token has no issue time (iat)');
    if (claims.iat > Date.now() / 1000 + this.clockToleranceSeconds) {
      throw new InvalidTokenError('the token is issued in the future (iat)');
    }
    // Only clients the API knows may present tokens: a token the realm issued to some other client
    // (a test client, a third-party app with the right audience) is not for us.
    const client = claims.azp ?? claims.client_id;
    if (typeof client !== 'string' || !this.allowedClients.has(client)) {
      throw new InvalidTokenError('the token was issued to a client this API does not serve (azp)');
    }
    const binding = boundThumbprintOf(claims);
    if (binding.refusal) throw new InvalidTokenError(binding.refusal);
    // The API, not only the realm, insists: a token of a browser client that is not bound to a key (a realm
    // imported before the client required DPoP, a client setting changed) would be a bearer token again.
    if (binding.jkt === undefined && this.dpopClients.has(client)) {
      throw new InvalidTokenError(`tokens of the client ${client} must be DPoP-bound (cnf.jkt)`);
    }
    return toAuthenticatedUser(claims, binding.jkt ?? null);
  }
}
