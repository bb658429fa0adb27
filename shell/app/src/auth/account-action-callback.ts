import type { SigninState } from './oidc';

/*
 * The part of account actions every page load needs, kept tiny: the rest (auth/account-actions.ts) loads only
 * when a page asks for an action or one has just ended, so it stays out of the shell's first download.
 */

/** Where the outcome of an account action waits, in this tab, between the callback and the page. */
export const ACCOUNT_ACTION_RESULT_KEY = 'atrium.accountActionResult';

/**
 * Called by the sign-in callback: when the round trip ran an account action, keeps the action and Keycloak's
 * `kc_action_status` as they came (takeAccountActionResult checks them).
 */
export function keepAccountActionResult(
  state: unknown,
  search: string,
  storage: Storage = sessionStorage,
): void {
  const action =
    typeof state === 'object' && state !== null ? (state as SigninState).accountAction : undefined;
  if (action === undefined || action === null) return;
  const status = new URLSearchParams(search).get('kc_action_status');
  storage.setItem(ACCOUNT_ACTION_RESULT_KEY, JSON.stringify({ action, status }));
}

/** Whether an outcome waits to be shown (cheap: no parsing). */
export function hasAccountActionResult(storage: Storage = sessionStorage): boolean {
  return storage.getItem(ACCOUNT_ACTION_RESULT_KEY) !== null;
}
