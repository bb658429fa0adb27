import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/index.js';
import { IdentityAdminUnavailableError } from './account.errors.js';

/** A login event (`EventRepresentation`): sign-ins, failures, credential changes. */
export interface KeycloakEvent {
  readonly id?: string;
  /** Epoch milliseconds. */
  readonly time: number;
  readonly type: string;
  readonly userId?: string;
  readonly sessionId?: string;
  readonly clientId?: string;
  readonly ipAddress?: string;
  readonly error?: string;
  readonly details?: Record<string, string>;
}

/** An admin event (`AdminEventRepresentation`): a change made through the admin API or console. */
export interface KeycloakAdminEvent {
  readonly id?: string;
  readonly time: number;
  readonly operationType: string;
  readonly resourceType?: string;
  readonly resourcePath?: string;
  readonly error?: string;
  readonly authDetails?: {
    readonly clientId?: string;
    readonly userId?: string;
    readonly ipAddress?: string;
  };
}

/** How many events one page of Keycloak's events API returns at most. */
export const EVENTS_PAGE_SIZE = 100;

/**
 * Keycloak's admin REST API, reached as the API's own confidential client (`KEYCLOAK_ADMIN_CLIENT_ID`, whose
 * service account holds `view-events` of realm-management and nothing else: docs/security.md): Keycloak's login
 * and admin events, for security activity and the audit log. It can read or change no user; what the API does on
 * a person's account goes through Keycloak's account API with that person's own token (KeycloakAccountClient).
 * Plain fetch: a handful of calls, and no SDK has to keep up with Node's module system.
 */
@Injectable()
export class KeycloakAdminClient {
  private readonly logger = new Logger(KeycloakAdminClient.name);
  private token: { value: string; renewAt: number } | undefined;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** Login events, newest first; `user` narrows them to one user, `from` (epoch ms) to that moment onwards. */
  async events(query: {
    user?: string;
    from?: number;
    first?: number;
    max?: number;
  }): Promise<KeycloakEvent[]> {
    return (await this.call<KeycloakEvent[]>('GET', `/events?${pageQuery(query)}`)) ?? [];
  }

  /** Admin events, newest first, from `from` (epoch ms) onwards. */
  async adminEvents(query: { from?: number; first?: number; max?: number }): Promise<KeycloakAdminEvent[]> {
    return (await this.call<KeycloakAdminEvent[]>('GET', `/admin-events?${pageQuery(query)}`)) ?? [];
  }

  /** Sends one admin API request; exposed for the integration tests that try what the client may not do. */
  async call<T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options: { allow404?: boolean; body?: unknown } = {},
  ): Promise<T | null> {
    const send = async (token: string) =>
      fetch(`${this.config.keycloakAdmin.adminUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(10_000),
      });
    let response: Response;
    try {
      response = await send(await this.accessToken());
      if (response.status === 401) {
        // The cached token was revoked or the realm's keys rotated: one fresh token, once.
        this.token = undefined;
        response = await send(await this.accessToken());
      }
    } catch (error) {
      if (error instanceof KeycloakAdminError || error instanceof IdentityAdminUnavailableError) throw error;
      this.logger.warn(`Keycloak admin API unreachable (${method} ${path}): ${String(error)}`);
      throw new IdentityAdminUnavailableError({ cause: error });
    }
    if (response.status === 404 && options.allow404) return null;
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      const error = new KeycloakAdminError(method, path, response.status, text.slice(0, 300));
      this.logger.error(error.reason);
      throw error;
    }
    if (response.status === 204) return null;
    const text = await response.text();
    return text.length === 0 ? null : (JSON.parse(text) as T);
  }

  private async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return this.token.value;
    const { tokenUrl, clientId, clientSecret } = this.config.keycloakAdmin;
    let response: Response;
    try {
      response = await fetch(tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: clientId,
          client_secret: clientSecret,
        }),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      this.logger.warn(`Keycloak token endpoint unreachable: ${String(error)}`);
      throw new IdentityAdminUnavailableError({ cause: error });
    }
    if (!response.ok) {
      // Wrong secret or disabled client: an operator's problem, told to the log, never to the caller.
      this.logger.error(
        `Keycloak refused the client ${clientId} (${response.status}); check KEYCLOAK_ADMIN_CLIENT_*`,
      );
      throw new IdentityAdminUnavailableError();
    }
    const body = (await response.json()) as { access_token: string; expires_in?: number };
    const lifetime = (body.expires_in ?? 60) * 1000;
    this.token = { value: body.access_token, renewAt: Date.now() + lifetime / 2 };
    return body.access_token;
  }
}

/** Keycloak answered an admin request with an error status (e.g. 403: beyond the client's roles). */
export class KeycloakAdminError extends IdentityAdminUnavailableError {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: string,
  ) {
    super();
  }

  /** For the log only: the caller gets the generic message. */
  get reason(): string {
    return `Keycloak admin API answered ${this.status} to ${this.method} ${this.path}: ${this.body}`;
  }
}

function pageQuery(query: { user?: string; from?: number; first?: number; max?: number }): string {
  const params = new URLSearchParams();
  if (query.user !== undefined) params.set('user', query.user);
  if (query.from !== undefined) params.set('dateFrom', String(query.from));
  params.set('first', String(query.first ?? 0));
  params.set('max', String(query.max ?? EVENTS_PAGE_SIZE));
  return params.toString();
}
