import { hasAuthParams } from 'react-oidc-context';

/*
 * The part of account access every page load needs, kept tiny: the rest (auth/account-access.ts) loads only
 * when the person asks for access or comes back with Keycloak's answer.
 */

/**
 * The shell's page Keycloak answers the API's authorization request on (the realm registers it for the API's
 * client, `atrium-account-admin`). Its `code` and `state` are the API's to redeem, never the shell's sign-in.
 */
export const ACCOUNT_ACCESS_PATH = '/auth/account-access';

/** Whether this page is Keycloak's answer to the API's authorization request. */
export function isAccountAccessAnswer(location: Location = window.location): boolean {
  return location.pathname === ACCOUNT_ACCESS_PATH;
}

/** Whether this page is the answer to the shell's own sign-in (`code`/`error` and `state` anywhere else). */
export function hasSigninAnswer(location: Location = window.location): boolean {
  return hasAuthParams(location) && !isAccountAccessAnswer(location);
}
