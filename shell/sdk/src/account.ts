import type { components } from './generated/api';

// The account routes' wire types (`/api/account/*`), generated from the API's OpenAPI document
// (`npm run contract`); the names remotes use stay, as aliases.
type Schemas = components['schemas'];

/** One sign-in session of the person (a browser or device), from `GET /api/account/sessions`. */
export type AccountSession = Schemas['AccountSession'];

/** Response of `GET /api/account/sessions`. */
export type AccountSessions = Schemas['AccountSessions'];

/** Response of `POST /api/account/sessions/sign-out-others`. */
export type SignedOutSessions = Schemas['SignedOutSessions'];

/** One entry of `GET /api/account/activity`, newest first. */
export type SecurityEvent = Schemas['SecurityEvent'];

/** Keycloak event types shown as security activity. */
export type SecurityEventType = SecurityEvent['type'];

/** Response of `GET /api/account/activity`. */
export type AccountActivity = Schemas['AccountActivity'];

/** Body of `POST /api/account/access-request`: the shell's page Keycloak answers to. */
export type AccountAccessRequest = Schemas['AccountAccessRequest'];

/** Response of `POST /api/account/access-request`: Keycloak's authorization request for the browser to open. */
export type AccountAccessRedirect = Schemas['AccountAccessRedirect'];

/** Body of `POST /api/account/access`: Keycloak's answer (code and state) as it reached the shell's page. */
export type AccountAccessGrant = Schemas['AccountAccessGrant'];

/** One sign-in method of the person (password, authenticator app, passkey), from `GET /api/account/credentials`. */
export type AccountCredential = Schemas['AccountCredential'];

/** Response of `GET /api/account/credentials`. */
export type AccountCredentials = Schemas['AccountCredentials'];
