import type { AccountCredential } from '@atrium/sdk';

/** What a person calls each kind of sign-in credential, by Keycloak's credential type. */
export const CREDENTIAL_NAMES: Readonly<Record<AccountCredential['type'], string>> = {
  password: 'password',
  otp: 'authenticator app',
  'webauthn-passwordless': 'passkey',
  webauthn: 'security key',
};

/** The name of a credential type, also one the list does not know (Keycloak events may carry any). */
export function credentialName(type: string): string {
  return (CREDENTIAL_NAMES as Readonly<Record<string, string | undefined>>)[type] ?? type;
}
