import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from '@mikro-orm/core';
import type { AuthenticatedUser } from '../auth/access-token.js';
import { PersonalSessionRequiredError, ValidationFailedError } from '../common/errors/domain-errors.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import {
  type AccountActivity,
  type AccountCredentials,
  type AccountSessions,
  CREDENTIAL_TYPES,
  SECURITY_EVENT_TYPES,
  type SignedOutSessions,
} from './account.schemas.js';
import { KeycloakAdminClient } from './keycloak-admin.client.js';
import { SubjectErasure } from './subject-erasure.js';

/** How many security events `GET /api/account/activity` shows. */
export const ACTIVITY_LIMIT = 50;

/**
 * The caller's own account at Keycloak: sessions, security activity, deletion. Every Keycloak call is made
 * for `user.sub`, the verified token's subject; no route takes a user or session id it would act on
 * unchecked (a session is ended only if Keycloak lists it among the caller's own).
 */
@Injectable()
export class AccountService {
  constructor(
    private readonly em: EntityManager,
    private readonly keycloak: KeycloakAdminClient,
    private readonly erasure: SubjectErasure,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async sessions(user: AuthenticatedUser): Promise<AccountSessions> {
    this.requirePerson(user);
    const sessions = await this.keycloak.userSessions(user.sub);
    return {
      sessions: sessions
        .filter((session) => session.userId === user.sub)
        .sort((a, b) => b.lastAccess - a.lastAccess)
        .map((session) => ({
          id: session.id,
          ipAddress: session.ipAddress ?? null,
          startedAt: new Date(session.start).toISOString(),
          lastAccessAt: new Date(session.lastAccess).toISOString(),
          applications: Object.values(session.clients ?? {}).sort(),
          current: session.id === user.sessionId,
        })),
    };
  }

  /** Ends every session of the caller except the one the token belongs to. */
  async signOutOthers(user: AuthenticatedUser): Promise<SignedOutSessions> {
    this.requirePerson(user);
    const others = (await this.keycloak.userSessions(user.sub)).filter(
      (session) => session.userId === user.sub && session.id !== user.sessionId,
    );
    for (const session of others) await this.keycloak.endSession(session.id);
    return { signedOut: others.length };
  }

  /**
   * The caller's sign-in methods: id, kind, label and date only. Removing one is Keycloak's own
   * `delete_credential` action, which the person starts from the shell (kc_action) and confirms at Keycloak;
   * the API never removes a credential.
   */
  async credentials(user: AuthenticatedUser): Promise<AccountCredentials> {
    this.requirePerson(user);
    const types: readonly string[] = CREDENTIAL_TYPES;
    const credentials = await this.keycloak.credentials(user.sub);
    return {
      credentials: credentials
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
    const events = await this.keycloak.events({ user: user.sub, max: ACTIVITY_LIMIT * 4 });
    return {
      items: events
        .filter((event) => event.userId === user.sub && types.includes(event.type))
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

  /**
   * Deletes the caller's account once they typed their username: the API's data is erased (SubjectErasure) in one
   * transaction whose last step removes the user from Keycloak, so a Keycloak failure leaves everything as it was.
   */
  async deleteAccount(user: AuthenticatedUser, confirmation: string): Promise<void> {
    this.requirePerson(user);
    if (confirmation !== user.username) {
      throw new ValidationFailedError([
        { field: 'confirmation', message: 'type your username exactly as shown to confirm' },
      ]);
    }
    await this.em.transactional(async (em) => {
      await this.erasure.erase(em, user.sub, new Date());
      await em.flush();
      await this.keycloak.deleteUser(user.sub);
    });
  }

  private requirePerson(user: AuthenticatedUser): void {
    if (user.clientId === null || !this.config.accountClients.includes(user.clientId)) {
      throw new PersonalSessionRequiredError(user.clientId);
    }
  }
}
