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

/** Body of `POST /api/account/deletion`: the person types their username to confirm. */
export const accountDeletionSchema = z
  .strictObject({
    confirmation: z.string('type your username to confirm').max(255, 'must be 255 characters or fewer'),
  })
  .meta({ id: 'AccountDeletionRequest' });

export type AccountDeletionRequest = z.output<typeof accountDeletionSchema>;
