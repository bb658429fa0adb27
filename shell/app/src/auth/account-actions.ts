import {
  isAccountAction,
  type AccountAction,
  type AccountActionResult,
  type AccountActionStatus,
} from '@atrium/sdk';
import { ACCOUNT_ACTION_RESULT_KEY } from './account-action-callback';
import type { SigninState } from './oidc';

const STATUSES: readonly string[] = ['success', 'cancelled', 'error'] satisfies AccountActionStatus[];

/**
 * Keycloak's `kc_action` value for `action`: its name, or `delete_credential:<credential id>` (Keycloak splits
 * the value at the colon and passes the rest to the action as its parameter).
 */
export function kcActionOf(action: AccountAction): string {
  return typeof action === 'string' ? action : `${action.name}:${action.credentialId}`;
}

/**
 * The sign-in request that runs `action` (Keycloak's application-initiated action, `kc_action`) and then
 * returns to `returnTo`: the round trip is an ordinary authorization request, so the tokens are renewed with
 * it and the callback stays the shell's.
 *
 * @throws Error for anything but an action of the sdk's list (a remote is code the shell does not trust).
 */
export function accountActionRequest(action: AccountAction, returnTo: string) {
  if (!isAccountAction(action))
    throw new Error(`Not an account action the shell starts: ${JSON.stringify(action)}`);
  const state: SigninState = { returnTo, accountAction: action };
  return { state, extraQueryParams: { kc_action: kcActionOf(action) } };
}

/**
 * The outcome the sign-in callback kept (auth/account-action-callback.ts), once: it is removed as it is read.
 * An action the shell does not start is no result; a missing or unknown status counts as an error.
 */
export function takeAccountActionResult(storage: Storage = sessionStorage): AccountActionResult | null {
  const text = storage.getItem(ACCOUNT_ACTION_RESULT_KEY);
  storage.removeItem(ACCOUNT_ACTION_RESULT_KEY);
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as { action?: unknown; status?: unknown };
    if (isAccountAction(parsed.action)) {
      const status =
        typeof parsed.status === 'string' && STATUSES.includes(parsed.status) ? parsed.status : 'error';
      return { action: parsed.action, status: status as AccountActionStatus };
    }
  } catch {
    // fall through: a damaged entry is no result
  }
  return null;
}
