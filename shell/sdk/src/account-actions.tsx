import { createContext, useContext, type ReactNode } from 'react';
import type { AccountCredential } from './account';

/**
 * Keycloak's application-initiated actions a remote may ask for by name: change the password, register a
 * passkey, set up an authenticator app, delete the account. Each takes the person to Keycloak and back to the
 * same page, except a deletion that went through: Keycloak then says so on its own page, and the person is gone.
 * Keycloak asks for the password again before a deletion (always, however recent the sign-in) and has the person
 * confirm it on its own page, which no other site may frame: a remote can start it, never carry it out.
 */
export type AccountActionName =
  'UPDATE_PASSWORD' | 'webauthn-register-passwordless' | 'CONFIGURE_TOTP' | 'delete_account';

/** Every {@link AccountActionName}; with {@link RemoveCredential}, the shell starts no other action. */
export const ACCOUNT_ACTIONS: readonly AccountActionName[] = [
  'UPDATE_PASSWORD',
  'webauthn-register-passwordless',
  'CONFIGURE_TOTP',
  'delete_account',
];

/** The kinds of credential a person may remove: every second factor and passkey; the password stays. */
export type RemovableCredentialType = Exclude<AccountCredential['type'], 'password'>;

/** Every {@link RemovableCredentialType}. */
export const REMOVABLE_CREDENTIAL_TYPES: readonly RemovableCredentialType[] = [
  'otp',
  'webauthn-passwordless',
  'webauthn',
];

/**
 * Removing one of the person's own credentials, by its id from `GET /api/account/credentials` (Keycloak's
 * `delete_credential` action): Keycloak names the credential, asks the person to confirm, and removes only a
 * credential of the person signed in. `credentialType` words the message afterwards.
 */
export interface RemoveCredential {
  readonly name: 'delete_credential';
  readonly credentialId: string;
  readonly credentialType: RemovableCredentialType;
}

/** An account action a remote may ask the shell for. */
export type AccountAction = AccountActionName | RemoveCredential;

/** A credential id as Keycloak makes them (UUIDs): letters, digits and hyphens, so it carries nothing else. */
const CREDENTIAL_ID = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Whether `value` is an action the shell starts (also after a round trip through storage): a name of
 * {@link ACCOUNT_ACTIONS}, or a {@link RemoveCredential} with a well-formed id and a removable type.
 */
export function isAccountAction(value: unknown): value is AccountAction {
  if (typeof value === 'string') return (ACCOUNT_ACTIONS as readonly string[]).includes(value);
  if (typeof value !== 'object' || value === null) return false;
  const { name, credentialId, credentialType } = value as Partial<Record<keyof RemoveCredential, unknown>>;
  return (
    name === 'delete_credential' &&
    typeof credentialId === 'string' &&
    CREDENTIAL_ID.test(credentialId) &&
    (REMOVABLE_CREDENTIAL_TYPES as readonly unknown[]).includes(credentialType)
  );
}

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
  /**
   * Leaves the page for Keycloak's screen of `action`; the person comes back to the current page.
   *
   * @throws Error for a value that is no {@link AccountAction} (see {@link isAccountAction}).
   */
  readonly run: (action: AccountAction) => Promise<void>;
  /**
   * Leaves the page for Keycloak to let the Atrium API act on the person's own account (list their sessions and
   * sign-in methods, end their other sessions) and comes back to the current page: the answer to
   * `account_access_required`. Keycloak signs the person in for it without a page while their session lives.
   */
  readonly requestAccess: () => Promise<void>;
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
