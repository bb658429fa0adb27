import { Inject, Injectable } from '@nestjs/common';
import { type AuthenticatedUser, requirePersonalSession } from '../auth/index.js';
import { AccountAccessRequiredError } from './account.errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { AccountAccessService } from './account-access.service.js';
import {
  type AccountActivity,
  type AccountCredentials,
  type AccountSessions,
  CREDENTIAL_TYPES,
  SECURITY_EVENT_TYPES,
  type SignedOutSessions,
} from './account.schemas.js';
import { AccountTokenRefusedError, KeycloakAccountClient } from './keycloak-account.client.js';
import { KeycloakAdminClient } from './keycloak-admin.client.js';

/** How many security events `GET /api/account/activity` shows. */
export const ACTIVITY_LIMIT = 50;

/**
 * The caller's own account at Keycloak. Sessions and sign-in methods go through Keycloak's account API with the
 * caller's own token (AccountAccessService), so Keycloak itself confines every call to them; no route takes a
 * user or session id it would act on unchecked. Security activity is read from Keycloak's events with the API's
 * `view-events`, for the caller's `sub` only: the account API has no events. Deleting the account is Keycloak's
 * own `delete_account` action, which the person runs there (the shell's `kc_action`), never the API.
 */
@Injectable()
export class AccountService {
  constructor(
    private readonly access: AccountAccessService,
    private readonly account: KeycloakAccountClient,
    private readonly keycloak: KeycloakAdminClient,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The authorization request that lets the API act for the caller at Keycloak, for their browser to open. */
  requestAccess(user: AuthenticatedUser, redirectUri: string): { authorizationUrl: string } {
    this.requirePerson(user);
    return { authorizationUrl: this.access.request(user, redirectUri) };
  }

  /** Keycloak's answer to {@link requestAccess}, redeemed and kept for the caller's session. */
  async grantAccess(user: AuthenticatedUser, code: string, state: string): Promise<void> {
    this.requirePerson(user);
    await this.access.grant(user, code, state);
  }

  async sessions(user: AuthenticatedUser): Promise<AccountSessions> {
    const sessions = await this.asPerson(user, (token) => this.account.sessions(token));
    const own = this.config.keycloakAdmin.clientId;
    return {
      sessions: [...sessions]
        .sort((a, b) => b.lastAccess - a.lastAccess)
        .map((session) => ({
          id: session.id,
          ipAddress: session.ipAddress ?? null,
          startedAt: new Date(session.started * 1000).toISOString(),
          lastAccessAt: new Date(session.lastAccess * 1000).toISOString(),
          // The API's own client signed in to the session to act for the person: not an application of theirs.
          applications: (session.clients ?? [])
            .map((client) => client.clientId)
            .filter((clientId) => clientId !== own)
            .sort(),
          current: session.id === user.sessionId,
        })),
    };
  }

  /** Ends every session of the caller except the one the token belongs to. */
  signOutOthers(user: AuthenticatedUser): Promise<SignedOutSessions> {
    return this.asPerson(user, async (token) => {
      const others = (await this.account.sessions(token)).filter(
        (session) => session.id !== user.sessionId && session.current !== true,
      );
      for (const session of others) await this.account.endSession(token, session.id);
      return { signedOut: others.length };
    });
  }

  /**
   * The caller's sign-in methods: id, kind, label and date only. Removing one is Keycloak's own
   * `delete_credential` action, which the person starts from the shell (kc_action) and confirms at Keycloak;
   * the API never removes a credential.
   */
  async credentials(user: AuthenticatedUser): Promise<AccountCredentials> {
    const kinds = await this.asPerson(user, (token) => this.account.credentials(token));
    const types: readonly string[] = CREDENTIAL_TYPES;
    return {
      credentials: kinds
        .flatMap((kind) => kind.userCredentialMetadatas ?? [])
        .map(({ credential }) => credential)
        .filter((credential) => types.includes(credential.type))
        .map((credential) => ({
          id: credential.id,
          type: credential.type as AccountCredentials['credentials'][number]['type'],
          label: credential.userLabel?.trim() || null,
          createdAt:
            credential.createdDate === undefined ? null : new Date(credential.createdDate).toISOString(),
        })),
    };
  }

  async activity(user: AuthenticatedUser): Promise<AccountActivity> {
    this.requirePerson(user);
    const types: readonly string[] = SECURITY_EVENT_TYPES;
    const own = this.config.keycloakAdmin.clientId;
    const events = await this.keycloak.events({ user: user.sub, max: ACTIVITY_LIMIT * 4 });
    return {
      items: events
        .filter((event) => event.userId === user.sub && types.includes(event.type))
        // The person's session letting the API act for them is no sign-in of theirs.
        .filter((event) => !(event.type === 'LOGIN' && event.clientId === own))
        .slice(0, ACTIVITY_LIMIT)
        .map((event) => ({
          type: event.type as AccountActivity['items'][number]['type'],
          at: new Date(event.time).toISOString(),
          ipAddress: event.ipAddress ?? null,
          application: event.clientId ?? null,
          error: event.error ?? null,
          credential: event.details?.['credential_type'] ?? null,
        })),
    };
  }

  /** Runs `call` with the caller's own account token; one Keycloak refuses is forgotten and asked for again. */
  private async asPerson<T>(user: AuthenticatedUser, call: (token: string) => Promise<T>): Promise<T> {
    this.requirePerson(user);
    const token = await this.access.tokenFor(user);
    try {
      return await call(token);
    } catch (error) {
      if (!(error instanceof AccountTokenRefusedError)) throw error;
      await this.access.forget(user);
      throw new AccountAccessRequiredError('Keycloak no longer accepts the one given in this session');
    }
  }

  private requirePerson(user: AuthenticatedUser): void {
    requirePersonalSession(user, this.config, 'manage their account');
  }
}
