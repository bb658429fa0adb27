/*
 * Wire types of `/api/account/*` (services/api/src/account/account.schemas.ts). Written here like the other
 * documents of this package until they are generated from the API's OpenAPI document.
 */

/** One sign-in session of the person (a browser or device), from `GET /api/account/sessions`. */
export interface AccountSession {
  readonly id: string;
  readonly ipAddress: string | null;
  readonly startedAt: string;
  readonly lastAccessAt: string;
  /** Client ids the session signed in to, e.g. `atrium-shell`. */
  readonly applications: readonly string[];
  /** The session this page runs in. */
  readonly current: boolean;
}

/** Response of `GET /api/account/sessions`. */
export interface AccountSessions {
  readonly sessions: readonly AccountSession[];
}

/** Response of `POST /api/account/sessions/sign-out-others`. */
export interface SignedOutSessions {
  readonly signedOut: number;
}

/** Keycloak event types shown as security activity. */
export type SecurityEventType =
  | 'LOGIN'
  | 'LOGIN_ERROR'
  | 'LOGOUT'
  | 'REGISTER'
  | 'VERIFY_EMAIL'
  | 'RESET_PASSWORD'
  | 'UPDATE_PASSWORD'
  | 'UPDATE_PASSWORD_ERROR'
  | 'UPDATE_CREDENTIAL'
  | 'UPDATE_CREDENTIAL_ERROR'
  | 'REMOVE_CREDENTIAL'
  | 'UPDATE_TOTP'
  | 'REMOVE_TOTP';

/** One entry of `GET /api/account/activity`, newest first. */
export interface SecurityEvent {
  readonly type: SecurityEventType;
  readonly at: string;
  readonly ipAddress: string | null;
  readonly application: string | null;
  readonly error: string | null;
  /** The credential type a change was about: `password`, `otp`, `webauthn-passwordless`, … */
  readonly credential: string | null;
}

/** Response of `GET /api/account/activity`. */
export interface AccountActivity {
  readonly items: readonly SecurityEvent[];
}

/** Body of `POST /api/account/deletion`: the person's username, typed to confirm. */
export interface AccountDeletionRequest {
  readonly confirmation: string;
}
