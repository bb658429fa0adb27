import {
  ACCOUNT_ACTIONS,
  type AccountAction,
  type AccountActionResult,
  type AccountActionStatus,
} from '@atrium/sdk';
import type { SigninState } from './oidc';

/** Where the outcome of an account action waits, in this tab, between the callback and the page. */
export const ACCOUNT_ACTION_RESULT_KEY = 'atrium.accountActionResult';

const STATUSES: readonly string[] = ['success', 'cancelled', 'error'] satisfies AccountActionStatus[];

export function isAccountAction(value: unknown): value is AccountAction {
  return typeof value === 'string' && (ACCOUNT_ACTIONS as readonly string[]).includes(value);
}

/**
 * The sign-in request that runs `action` (Keycloak's application-initiated action, `kc_action`) and then
 * returns to `returnTo`: the round trip is an ordinary authorization request, so the tokens are renewed with
 * it and the callback stays the shell's.
 */
export function accountActionRequest(action: AccountAction, returnTo: string) {
  const state: SigninState = { returnTo, accountAction: action };
  return { state, extraQueryParams: { kc_action: action } };
}

/**
 * Called by the sign-in callback: when the round trip was an account action, keeps Keycloak's
 * `kc_action_status` for the page to show (a missing or unknown status counts as an error).
 */
export function keepAccountActionResult(
  state: unknown,
  search: string,
  storage: Storage = sessionStorage,
): void {
  const action =
    typeof state === 'object' && state !== null ? (state as SigninState).accountAction : undefined;
  if (!isAccountAction(action)) return;
  const reported = new URLSearchParams(search).get('kc_action_status') ?? '';
  const status = (STATUSES.includes(reported) ? reported : 'error') as AccountActionStatus;
  const result: AccountActionResult = { action, status };
  storage.setItem(ACCOUNT_ACTION_RESULT_KEY, JSON.stringify(result));
}

/** The kept outcome, once: it is removed as it is read. */
export function takeAccountActionResult(storage: Storage = sessionStorage): AccountActionResult | null {
  const text = storage.getItem(ACCOUNT_ACTION_RESULT_KEY);
  storage.removeItem(ACCOUNT_ACTION_RESULT_KEY);
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as Partial<AccountActionResult>;
    if (isAccountAction(parsed.action) && STATUSES.includes(parsed.status ?? '')) {
      return { action: parsed.action, status: parsed.status as AccountActionStatus };
    }
  } catch {
    // fall through: a damaged entry is no result
  }
  return null;
}
