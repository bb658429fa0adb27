import { Inject, Injectable, Logger } from '@nestjs/common';
import { IdentityAdminUnavailableError } from './account.errors.js';
import { APP_CONFIG, type AppConfig } from '../config/index.js';

/** A sign-in session of the person, as Keycloak's account API lists it (`SessionRepresentation`). */
export interface AccountApiSession {
  readonly id: string;
  readonly ipAddress?: string;
  /** Epoch seconds. */
  readonly started: number;
  readonly lastAccess: number;
  /** The session of the token that asked. */
  readonly current?: boolean;
  readonly clients?: readonly { readonly clientId: string }[];
}

/** One kind of credential with the person's credentials of that kind (`CredentialContainer`). */
export interface AccountApiCredentialType {
  readonly type: string;
  readonly userCredentialMetadatas?: readonly {
    readonly credential: {
      readonly id: string;
      readonly type: string;
      readonly userLabel?: string;
      /** Epoch milliseconds. */
      readonly createdDate?: number;
    };
  }[];
}

/**
 * Keycloak refused the person's token (401): expired, its session ended, or the person is gone. Nothing was
 * done; AccountService forgets the token and asks for a new one.
 */
export class AccountTokenRefusedError extends Error {
  constructor(readonly path: string) {
    super(`Keycloak's account API refused the person's token (${path})`);
  }
}

/**
 * Keycloak's account REST API (`<realm>/account`), called with a token of the person it acts for, issued to the
 * API for them (AccountAccessService): Keycloak itself limits every call to that person and to what their own
 * roles allow (`view-profile`, `manage-account`). The API holds no right of its own over any user.
 */
@Injectable()
export class KeycloakAccountClient {
  private readonly logger = new Logger(KeycloakAccountClient.name);

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** The person's online sessions. */
  sessions(token: string): Promise<AccountApiSession[]> {
    return this.call<AccountApiSession[]>(token, 'GET', '/sessions');
  }

  /** Ends one of the person's sessions; Keycloak ignores an id that is not theirs. */
  async endSession(token: string, sessionId: string): Promise<void> {
    await this.call(token, 'DELETE', `/sessions/${encodeURIComponent(sessionId)}`);
  }

  /** The kinds of credential the realm offers, each with the person's credentials of that kind (no secrets). */
  credentials(token: string): Promise<AccountApiCredentialType[]> {
    return this.call<AccountApiCredentialType[]>(token, 'GET', '/credentials');
  }

  private async call<T>(token: string, method: 'GET' | 'DELETE', path: string): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.config.keycloakAdmin.accountUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      this.logger.warn(`Keycloak's account API unreachable (${method} ${path}): ${String(error)}`);
      throw new IdentityAdminUnavailableError({ cause: error });
    }
    if (response.status === 401) throw new AccountTokenRefusedError(path);
    if (!response.ok) {
      // 403: the person's token lacks the account roles (a realm imported before they were default roles).
      const text = await response.text().catch(() => '');
      this.logger.error(
        `Keycloak's account API answered ${response.status} to ${method} ${path}: ${text.slice(0, 300)}`,
      );
      throw new IdentityAdminUnavailableError();
    }
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }
}
