import type { SecurityEventType } from './account';

/**
 * The sign-in service's security events in a person's words: the profile's "Recent security activity" and the
 * registry console's audit log both name them so. Not shared at run time (only `@atrium/sdk` is), so the shell's
 * initial JavaScript does not carry it; each remote that imports it bundles its own copy.
 */
export const SECURITY_EVENT_WORDS: Readonly<Record<SecurityEventType, string>> = {
  LOGIN: 'Signed in',
  LOGIN_ERROR: 'Failed sign-in',
  LOGOUT: 'Signed out',
  REGISTER: 'Account created',
  VERIFY_EMAIL: 'E-mail address verified',
  RESET_PASSWORD: 'Password reset requested',
  UPDATE_PASSWORD: 'Password changed',
  UPDATE_PASSWORD_ERROR: 'Password change failed',
  UPDATE_CREDENTIAL: 'Sign-in method changed',
  UPDATE_CREDENTIAL_ERROR: 'Sign-in method change failed',
  REMOVE_CREDENTIAL: 'Sign-in method removed',
  UPDATE_TOTP: 'Authenticator app set up',
  REMOVE_TOTP: 'Authenticator app removed',
};
