import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, SignJWT, type JWTPayload } from 'jose';

export interface TokenOptions {
  claims?: JWTPayload & Record<string, unknown>;
  /** Header overrides; `typ` defaults to `at+jwt`, `kid` to the issuer's key id. */
  header?: { typ?: string; kid?: string; alg?: string };
  /** Signs with this key instead of the issuer's (a forged token). */
  privateKey?: KeyObject;
  issuer?: string;
  audience?: string;
  expiresIn?: string | number;
  omitSub?: boolean;
}

/**
 * A stand-in identity provider for unit tests: serves an OpenID discovery document and a JWKS on
 * 127.0.0.1:<random port> and mints RS256 tokens with its own key. Integration tests use Keycloak.
 */
export interface LocalIssuer {
  readonly issuer: string;
  readonly audience: string;
  readonly kid: string;
  readonly publicKey: KeyObject;
  mint(options?: TokenOptions): Promise<string>;
  close(): Promise<void>;
}

export function generateRsaKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

export async function startLocalIssuer(
  options: { port?: number; audience?: string } = {},
): Promise<LocalIssuer> {
  const { privateKey, publicKey } = generateRsaKey();
  const kid = 'test-key-1';
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const audience = options.audience ?? 'atrium-api';
  let issuer = '';
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    const base = new URL(issuer).pathname;
    if (path === `${base}/.well-known/openid-configuration`) {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/protocol/openid-connect/certs` }));
    } else if (path === `${base}/protocol/openid-connect/certs`) {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: [jwk] }));
    } else {
      response.statusCode = 404;
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}/realms/test`;

  return {
    issuer,
    audience,
    kid,
    publicKey,
    async mint(token: TokenOptions = {}) {
      const claims: JWTPayload & Record<string, unknown> = {
        sub: 'user-123',
        preferred_username: 'ada',
        email: 'ada@example.test',
        name: 'Ada Lovelace',
        realm_access: { roles: ['atrium-user'] },
        ...token.claims,
      };
      if (token.omitSub) delete claims.sub;
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid, ...token.header })
        .setIssuer(token.issuer ?? issuer)
        .setAudience(token.audience ?? audience)
        .setIssuedAt();
      jwt.setExpirationTime(token.expiresIn ?? '5m');
      return jwt.sign(token.privateKey ?? privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A free TCP port on 127.0.0.1 (closed again), for a server that is meant to come up later. */
export async function reservePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
