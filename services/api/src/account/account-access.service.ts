import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import { decodeJwt } from 'jose';
import type { AuthenticatedUser } from '../auth/index.js';
import { AccountAccessRequiredError, IdentityAdminUnavailableError } from './account.errors.js';
import { ValidationFailedError } from '../common/errors/domain-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { AccountAccess } from './account-access.entity.js';
import { SealedBox } from './sealed-box.js';
import { subjectHash } from './subject-erasure.js';

/** How long the person has to come back from Keycloak with the answer to one request. */
export const ACCESS_REQUEST_SECONDS = 600;

/** A token this close to its end is not used: the call it is for could outlive it. */
const EXPIRY_MARGIN_MS = 30_000;

/** What the `state` of an access request carries through the browser, sealed. */
interface AccessRequestState {
  readonly sub: string;
  readonly sid: string;
  readonly redirectUri: string;
  readonly verifier: string;
  /** Epoch seconds after which the answer is refused. */
  readonly exp: number;
}

/**
 * A person's own token for Keycloak's account API, held by the API and never handed out. Keycloak cannot exchange
 * the shell's DPoP-bound tokens for one (from 26.6 on it refuses a sender-constrained subject token to any client
 * but its own, and the shell's is public), so the API asks for it the way any OAuth client does: an authorization request of
 * its confidential client (`KEYCLOAK_ADMIN_CLIENT_ID`, code flow with PKCE) that the person's browser carries to
 * Keycloak, where their session signs them in without a page; the code comes back to the shell's page, and only
 * the API, with its secret and the PKCE verifier sealed in `state`, can redeem it. The token carries the person's
 * own `view-profile` and `manage-account` for the `account` audience and nothing else.
 *
 * Bound three ways to the caller: the sealed state names the subject and Keycloak session that asked, the token
 * must name the same ones, and it is kept per session and used only for requests of that session and subject.
 */
@Injectable()
export class AccountAccessService {
  private readonly logger = new Logger(AccountAccessService.name);
  private readonly states: SealedBox;
  private readonly tokens: SealedBox;

  constructor(
    private readonly em: EntityManager,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    const secret = config.keycloakAdmin.clientSecret;
    this.states = new SealedBox(secret, 'account access request state');
    this.tokens = new SealedBox(secret, 'account access token');
  }

  /**
   * The authorization request that grants the API the caller's token, for the browser to open. `redirectUri`
   * is where Keycloak sends the answer: a page of one of the shell's origins (`CORS_ORIGINS`); Keycloak itself
   * accepts only the one its realm registers.
   */
  request(user: AuthenticatedUser, redirectUri: string): string {
    const sid = this.sessionOf(user);
    if (!this.isShellPage(redirectUri)) {
      throw new ValidationFailedError([
        { field: 'redirectUri', message: "must be a page of the shell's origin (CORS_ORIGINS)" },
      ]);
    }
    const verifier = randomBytes(32).toString('base64url');
    const state: AccessRequestState = {
      sub: user.sub,
      sid,
      redirectUri,
      verifier,
      exp: Math.floor(Date.now() / 1000) + ACCESS_REQUEST_SECONDS,
    };
    const url = new URL(this.config.keycloakAdmin.authorizationUrl);
    url.search = new URLSearchParams({
      client_id: this.config.keycloakAdmin.clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      state: this.states.seal(JSON.stringify(state)),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  }

  /**
   * Redeems Keycloak's answer to {@link request} and keeps the token for the caller's session. Refused unless
   * the state is one this API sealed, still fresh, for the caller's subject and session, and the token Keycloak
   * issues names them too.
   */
  async grant(user: AuthenticatedUser, code: string, sealedState: string): Promise<void> {
    const sid = this.sessionOf(user);
    const state = this.openState(sealedState);
    if (state === null || state.exp < Date.now() / 1000) {
      throw new AccountAccessRequiredError(
        'the answer from Keycloak was not for a request made here, or came too late',
      );
    }
    if (state.sub !== user.sub || state.sid !== sid) {
      throw new AccountAccessRequiredError('the answer from Keycloak was for another person or session');
    }
    const token = await this.redeem(code, state);
    // Read, not verified: it comes straight from Keycloak's token endpoint, which the API asked with its secret.
    const claims = decodeJwt(token.accessToken);
    if (
      claims.sub !== user.sub ||
      claims['sid'] !== sid ||
      claims['azp'] !== this.config.keycloakAdmin.clientId
    ) {
      throw new AccountAccessRequiredError('Keycloak answered for another person or session');
    }
    const now = Date.now();
    const em = this.em.fork();
    await em.nativeDelete(AccountAccess, { expiresAt: { $lt: new Date(now) } });
    await em.upsert(AccountAccess, {
      sessionId: sid,
      subjectHash: subjectHash(user.sub),
      token: this.tokens.seal(token.accessToken),
      // Keycloak's own word for how long the token lives, bounded by its `exp` when it has one.
      expiresAt: new Date(
        claims.exp === undefined
          ? now + token.expiresIn * 1000
          : Math.min(now + token.expiresIn * 1000, claims.exp * 1000),
      ),
    });
  }

  /** The caller's token for Keycloak's account API, or AccountAccessRequiredError when this session has none. */
  async tokenFor(user: AuthenticatedUser): Promise<string> {
    const sid = this.sessionOf(user);
    const row = await this.em.fork().findOne(AccountAccess, { sessionId: sid });
    if (row === null || row.subjectHash !== subjectHash(user.sub)) {
      throw new AccountAccessRequiredError('none in this session yet');
    }
    const token =
      row.expiresAt.getTime() - EXPIRY_MARGIN_MS > Date.now() ? this.tokens.open(row.token) : null;
    if (token === null) {
      await this.forget(user);
      throw new AccountAccessRequiredError('the one given in this session has expired');
    }
    return token;
  }

  /** Drops the caller's token (Keycloak refused it: the session ended, or the person is gone). */
  async forget(user: AuthenticatedUser): Promise<void> {
    if (user.sessionId) await this.em.fork().nativeDelete(AccountAccess, { sessionId: user.sessionId });
  }

  private sessionOf(user: AuthenticatedUser): string {
    if (!user.sessionId) throw new AccountAccessRequiredError('the token names no Keycloak session');
    return user.sessionId;
  }

  private isShellPage(redirectUri: string): boolean {
    try {
      const url = new URL(redirectUri);
      return this.config.corsOrigins.includes(url.origin) && url.search === '' && url.hash === '';
    } catch {
      return false;
    }
  }

  private openState(sealed: string): AccessRequestState | null {
    const text = this.states.open(sealed);
    if (text === null) return null;
    try {
      return JSON.parse(text) as AccessRequestState;
    } catch {
      return null;
    }
  }

  /** The code for tokens at Keycloak's token endpoint, as the confidential client with its PKCE verifier. */
  private async redeem(
    code: string,
    state: AccessRequestState,
  ): Promise<{ accessToken: string; expiresIn: number }> {
    const { clientId, clientSecret, tokenUrl } = this.config.keycloakAdmin;
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: state.redirectUri,
          code_verifier: state.verifier,
          client_id: clientId,
          client_secret: clientSecret,
        }),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      this.logger.warn(`Keycloak token endpoint unreachable: ${String(error)}`);
      throw new IdentityAdminUnavailableError({ cause: error });
    }
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: string;
      expires_in?: number;
      error?: string;
    };
    if (response.status === 400 && body.error === 'invalid_grant') {
      // Used already, expired, or issued for another request: the person starts again.
      throw new AccountAccessRequiredError('Keycloak did not accept the answer (used or expired)');
    }
    if (!response.ok || typeof body.access_token !== 'string') {
      this.logger.error(
        `Keycloak refused the code of client ${clientId} (${response.status} ${body.error ?? ''}); check KEYCLOAK_ADMIN_CLIENT_* and the realm`,
      );
      throw new IdentityAdminUnavailableError();
    }
    return { accessToken: body.access_token, expiresIn: body.expires_in ?? 60 };
  }
}
