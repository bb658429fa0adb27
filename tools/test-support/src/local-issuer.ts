// A stand-in identity provider for unit tests (discovery, JWKS, RS256 tokens); integration tests use Keycloak.
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, SignJWT, type JWTPayload } from 'jose';

export interface TokenOptions {
  claims?: JWTPayload & Record<string, unknown>;
  /** Header overrides; `typ` defaults to `at+jwt`, `kid` to the issuer's key id. */
  header?: { typ?: string; kid?: string; alg?: string };
  /** Signs with this key id of the issuer (after {@link LocalIssuer.rotate}); default the newest key. */
  useKid?: string;
  /** Signs with this key instead of the issuer's (a forged token). */
  privateKey?: KeyObject;
  issuer?: string;
  audience?: string | string[];
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
  /** The key id tokens are signed with by default (the newest key). */
  readonly kid: string;
  readonly publicKey: KeyObject;
  /** How many times the JWKS was fetched. */
  readonly jwksRequests: number;
  mint(options?: TokenOptions): Promise<string>;
  /** Signs an arbitrary header and payload with the issuer's current RS256 key (for hand-crafted headers). */
  signRaw(header: Record<string, unknown>, payload: Record<string, unknown>): string;
  /** Like {@link signRaw} with RS384 (a valid signature with an algorithm the API may not allow). */
  signRaw384(): string;
  /** Signs a header and a raw (possibly non-object) JSON payload. */
  signRawPayload(header: Record<string, unknown>, payloadJson: string): string;
  /**
   * Publishes a new key and signs with it from now on; `retireOld` drops the previous keys from the JWKS;
   * `kid` publishes it under an existing key id instead of a new one (other key material, same name).
   */
  rotate(options?: { retireOld?: boolean; kid?: string }): Promise<string>;
  /** While false, the discovery and JWKS endpoints answer 503 (the issuer is "down"). */
  setAvailable(available: boolean): void;
  close(): Promise<void>;
}

export function generateRsaKey(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('rsa', { modulusLength: 2048 });
}

export async function startLocalIssuer(
  options: { port?: number; audience?: string } = {},
): Promise<LocalIssuer> {
  const keys: Array<{ kid: string; privateKey: KeyObject; publicKey: KeyObject; jwk: object }> = [];
  const addKey = async (kid: string) => {
    const pair = generateRsaKey();
    keys.push({ kid, ...pair, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'RS256', use: 'sig' } });
  };
  await addKey('test-key-1');
  let keysMade = 1;
  const current = () => keys[keys.length - 1] as (typeof keys)[number];
  const audience = options.audience ?? 'atrium-api';
  let issuer = '';
  let available = true;
  let jwksRequests = 0;
  const server: Server = createServer((request, response) => {
    const path = request.url ?? '';
    const base = new URL(issuer).pathname;
    if (!available) {
      response.statusCode = 503;
      response.end();
    } else if (path === `${base}/.well-known/openid-configuration`) {
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/protocol/openid-connect/certs` }));
    } else if (path === `${base}/protocol/openid-connect/certs`) {
      response.setHeader('content-type', 'application/json');
      jwksRequests += 1;
      response.end(JSON.stringify({ keys: keys.map((key) => key.jwk) }));
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
    get kid() {
      return current().kid;
    },
    get publicKey() {
      return current().publicKey;
    },
    get jwksRequests() {
      return jwksRequests;
    },
    signRaw(header, payload) {
      return signCompact(header, JSON.stringify(payload), 'sha256', current().privateKey);
    },
    signRawPayload(header, payloadJson) {
      return signCompact(header, payloadJson, 'sha256', current().privateKey);
    },
    signRaw384() {
      const now = Math.floor(Date.now() / 1000);
      return signCompact(
        { alg: 'RS384', typ: 'at+jwt', kid: current().kid },
        JSON.stringify({
          sub: 'user-123',
          iss: issuer,
          aud: audience,
          azp: 'atrium-shell',
          iat: now,
          exp: now + 300,
        }),
        'sha384',
        current().privateKey,
      );
    },
    async rotate({ retireOld = false, kid: reusedKid }: { retireOld?: boolean; kid?: string } = {}) {
      // Numbered by keys ever made, not keys published: a retired key's kid is never reused by accident.
      keysMade += 1;
      const kid = reusedKid ?? `test-key-${keysMade}`;
      if (reusedKid) keys.splice(0, keys.length, ...keys.filter((key) => key.kid !== reusedKid));
      await addKey(kid);
      if (retireOld) keys.splice(0, keys.length - 1);
      return kid;
    },
    setAvailable(value) {
      available = value;
    },
    async mint(token: TokenOptions = {}) {
      const signer = (token.useKid && keys.find((key) => key.kid === token.useKid)) || current();
      const claims: JWTPayload & Record<string, unknown> = {
        sub: 'user-123',
        preferred_username: 'ada',
        email: 'ada@example.test',
        name: 'Ada Lovelace',
        realm_access: { roles: ['atrium-user'] },
        // The browser client, one of OIDC_ALLOWED_CLIENTS' defaults.
        azp: 'atrium-shell',
        ...token.claims,
      };
      if (token.omitSub) delete claims.sub;
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: signer.kid, ...token.header })
        .setIssuer(token.issuer ?? issuer)
        .setAudience(token.audience ?? audience)
        .setIssuedAt(typeof token.claims?.iat === 'number' ? token.claims.iat : undefined);
      jwt.setExpirationTime(token.expiresIn ?? '5m');
      return jwt.sign(token.privateKey ?? signer.privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function signCompact(header: object, payloadJson: string, hash: string, key: KeyObject): string {
  const input = `${Buffer.from(JSON.stringify(header)).toString('base64url')}.${Buffer.from(payloadJson).toString('base64url')}`;
  return `${input}.${sign(hash, Buffer.from(input), key).toString('base64url')}`;
}
