import { z } from 'zod';

/** Response of `GET /api/account/sessions`: the caller's sign-in sessions at Keycloak. */
export const accountSessionsSchema = z
  .object({
    sessions: z.array(
      z
        .object({
          id: z.string(),
          ipAddress: z.string().nullable().describe('where the session signed in from, as Keycloak saw it'),
          startedAt: z.iso.datetime(),
          lastAccessAt: z.iso.datetime(),
          applications: z.array(z.string()).describe('client ids the session signed in to'),
          current: z.boolean().describe('the session of the token that asked'),
        })
        .meta({ id: 'AccountSession' }),
    ),
  })
  .meta({ id: 'AccountSessions' });

export type AccountSessions = z.output<typeof accountSessionsSchema>;

/** Response of `POST /api/account/sessions/sign-out-others`. */
export const signedOutSchema = z
  .object({ signedOut: z.int().describe('how many other sessions were ended') })
  .meta({ id: 'SignedOutSessions' });

export type SignedOutSessions = z.output<typeof signedOutSchema>;

/** Keycloak event types shown as security activity (sign-ins, failures, credential changes). */
export const SECURITY_EVENT_TYPES = [
  'LOGIN',
  'LOGIN_ERROR',
  'LOGOUT',
  'REGISTER',
  'VERIFY_EMAIL',
  'RESET_PASSWORD',
  'UPDATE_PASSWORD',
  'UPDATE_PASSWORD_ERROR',
  'UPDATE_CREDENTIAL',
  'UPDATE_CREDENTIAL_ERROR',
  'REMOVE_CREDENTIAL',
  'UPDATE_TOTP',
  'REMOVE_TOTP',
] as const;

/** Response of `GET /api/account/activity`: the caller's recent security events, newest first. */
export const accountActivitySchema = z
  .object({
    items: z.array(
      z
        .object({
          type: z.enum(SECURITY_EVENT_TYPES),
          at: z.iso.datetime(),
          ipAddress: z.string().nullable(),
          application: z.string().nullable().describe('the client id the event happened in'),
          error: z
            .string()
            .nullable()
            .describe("Keycloak's error code for a failure, e.g. invalid_user_credentials"),
          credential: z
            .string()
            .nullable()
            .describe('the credential type a change was about, e.g. password, otp, webauthn-passwordless'),
        })
        .meta({ id: 'SecurityEvent' }),
    ),
  })
  .meta({ id: 'AccountActivity' });

export type AccountActivity = z.output<typeof accountActivitySchema>;

/**
 * The kinds of sign-in credential the Security section shows, by Keycloak's credential type: the password, an
 * authenticator app (TOTP), a passkey (WebAuthn, passwordless) and a security key (WebAuthn as a second
 * factor). A credential of any other type is left out of the list.
 */
export const CREDENTIAL_TYPES = ['password', 'otp', 'webauthn-passwordless', 'webauthn'] as const;

/**
 * Response of `GET /api/account/credentials`: the caller's sign-in methods at Keycloak, in Keycloak's order.
 * Only what the person needs to recognise and remove one: never its secret or public key material.
 */
export const accountCredentialsSchema = z
  .object({
    credentials: z.array(
      z
        .object({
          id: z
            .string()
            .describe("Keycloak's id of the credential, for its delete_credential action (kc_action)"),
          type: z.enum(CREDENTIAL_TYPES),
          label: z
            .string()
            .nullable()
            .describe('the name the person gave it when adding it, e.g. "Work laptop"'),
          createdAt: z.iso.datetime().nullable().describe('when it was added, if Keycloak recorded it'),
        })
        .meta({ id: 'AccountCredential' }),
    ),
  })
  .meta({ id: 'AccountCredentials' });

export type AccountCredentials = z.output<typeof accountCredentialsSchema>;

/** Body of `POST /api/account/access-request`. */
export const accountAccessRequestSchema = z
  .strictObject({
    redirectUri: z
      .url('must be an absolute URL')
      .max(2048, 'must be 2048 characters or fewer')
      .describe("the shell's page Keycloak sends the answer to (the realm registers it)"),
  })
  .meta({ id: 'AccountAccessRequest' });

export type AccountAccessRequest = z.output<typeof accountAccessRequestSchema>;

/** Response of `POST /api/account/access-request`. */
export const accountAccessRedirectSchema = z
  .object({
    authorizationUrl: z
      .url()
      .describe("Keycloak's authorization request for the API's client: the browser opens it and comes back"),
  })
  .meta({ id: 'AccountAccessRedirect' });

export type AccountAccessRedirect = z.output<typeof accountAccessRedirectSchema>;

/** Body of `POST /api/account/access`: Keycloak's answer, as it reached the shell's page. */
export const accountAccessGrantSchema = z
  .strictObject({
    code: z.string().min(1).max(2048),
    state: z.string().min(1).max(4096),
  })
  .meta({ id: 'AccountAccessGrant' });

export type AccountAccessGrant = z.output<typeof accountAccessGrantSchema>;
