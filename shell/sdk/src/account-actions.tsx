import { createContext, useContext, type ReactNode } from 'react';

/**
 * Keycloak's application-initiated actions a remote may ask for: change the password, register a passkey,
 * set up an authenticator app. Each takes the person to Keycloak and back to the same page.
 */
export type AccountAction = 'UPDATE_PASSWORD' | 'webauthn-register-passwordless' | 'CONFIGURE_TOTP';

/** Every {@link AccountAction}; the shell starts no other. */
export const ACCOUNT_ACTIONS: readonly AccountAction[] = [
  'UPDATE_PASSWORD',
  'webauthn-register-passwordless',
  'CONFIGURE_TOTP',
];

/** How an account action ended, as Keycloak reported it (`kc_action_status`). */
export type AccountActionStatus = 'success' | 'cancelled' | 'error';

export interface AccountActionResult {
  readonly action: AccountAction;
  readonly status: AccountActionStatus;
}

/**
 * What the shell offers for a person's account at the identity provider. The shell owns OpenID Connect: a
 * remote asks for an action, the shell sends the person to Keycloak with `kc_action` and brings them back.
 */
export interface AccountActions {
  /** Leaves the page for Keycloak's screen of `action`; the person comes back to the current page. */
  readonly run: (action: AccountAction) => Promise<void>;
  /** The outcome of the action the person just came back from, or null. */
  readonly lastResult: AccountActionResult | null;
  /** Forgets {@link AccountActions.lastResult} (the message was read). */
  readonly dismissResult: () => void;
}

const AccountActionsContext = createContext<AccountActions | null>(null);

/** Provides {@link AccountActions}; rendered by the shell around mounted remotes (and by tests). */
export function AccountActionsProvider({ value, children }: { value: AccountActions; children?: ReactNode }) {
  return <AccountActionsContext value={value}>{children}</AccountActionsContext>;
}

/**
 * The shell's account actions.
 *
 * @throws Error when rendered outside a shell that provides them.
 */
export function useAccountActions(): AccountActions {
  const value = useContext(AccountActionsContext);
  if (value === null)
    throw new Error('useAccountActions() needs the Atrium shell (<AccountActionsProvider>).');
  return value;
}
