import {
  REMOVABLE_CREDENTIAL_TYPES,
  useAccountActions,
  type AccountAction,
  type AccountActionName,
  type AccountActionResult,
  type AccountCredential,
  type AccountCredentials,
  type RemovableCredentialType,
} from '@atrium/sdk';
import { Alert, Button, Card, ResourceView, useApiResource } from '@atrium/sdk/ui';
import { useState } from 'react';
import { credentialName } from './credential-names';
import { AccountAccessNeeded, needsAccountAccess } from './account-access-needed';
import { formatTime } from './format-time';

const ACTIONS: readonly { action: AccountActionName; label: string; done: string; testId: string }[] = [
  {
    action: 'UPDATE_PASSWORD',
    label: 'Change password',
    done: 'Your password was changed.',
    testId: 'security-change-password',
  },
  {
    action: 'webauthn-register-passwordless',
    label: 'Add a passkey',
    done: 'Your passkey was added.',
    testId: 'security-add-passkey',
  },
  {
    action: 'CONFIGURE_TOTP',
    label: 'Set up an authenticator app',
    done: 'Your authenticator app is set up.',
    testId: 'security-setup-totp',
  },
];

/** What the person pressed, in their words, and what happened when it worked. */
function wordsFor(action: AccountAction): { label: string; done: string } {
  if (typeof action !== 'string') {
    const name = credentialName(action.credentialType);
    return { label: `Remove your ${name}`, done: `Your ${name} was removed.` };
  }
  const entry = ACTIONS.find((candidate) => candidate.action === action);
  return { label: entry?.label ?? action, done: entry?.done ?? 'Done.' };
}

function describeResult(result: AccountActionResult): string {
  const { label, done } = wordsFor(result.action);
  if (result.status === 'success') return done;
  if (result.status === 'cancelled') return `Nothing changed: you cancelled "${label.toLowerCase()}".`;
  return `"${label}" did not complete. Nothing changed; please try again.`;
}

function isRemovable(type: AccountCredential['type']): type is RemovableCredentialType {
  return (REMOVABLE_CREDENTIAL_TYPES as readonly string[]).includes(type);
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The person's sign-in methods (password, passkeys, authenticator apps) with "Remove" for each second factor,
 * and change password, add a passkey, set up an authenticator app. Adding and removing happen on Keycloak's
 * own screens: Keycloak asks the person to confirm a removal and removes only their own credential.
 */
export function SignInMethods() {
  const actions = useAccountActions();
  const credentials = useApiResource<AccountCredentials>('/api/account/credentials');
  const [leaving, setLeaving] = useState(false);
  // The deletion's outcome is the deletion card's to show.
  const result = actions.lastResult?.action === 'delete_account' ? null : actions.lastResult;
  const start = (action: AccountAction) => {
    setLeaving(true);
    void actions.run(action).catch(() => setLeaving(false));
  };
  const factors = credentials.data?.credentials.filter((credential) => isRemovable(credential.type)) ?? [];

  return (
    <Card heading="Signing in">
      {result && (
        <Alert
          tone={result.status === 'error' ? 'error' : result.status === 'success' ? 'success' : 'info'}
          data-testid="security-action-result"
          data-status={result.status}
        >
          <p className="atrium-alert__text">{describeResult(result)}</p>
          <Button variant="secondary" onClick={actions.dismissResult}>
            Dismiss
          </Button>
        </Alert>
      )}
      {credentials.status === 'failed' && needsAccountAccess(credentials.error) ? (
        <AccountAccessNeeded what="your sign-in methods" />
      ) : (
        <ResourceView
          resource={credentials}
          loading="Loading your sign-in methods…"
          failed="Your sign-in methods could not be loaded"
        >
          {(data) => (
            <>
              <ul className="atrium-profile__list" data-testid="security-credentials">
                {data.credentials.map((credential) => {
                  const kind = capitalised(credentialName(credential.type));
                  // A password's label is set by whoever imported it, not by the person: they see "Password".
                  const label = credential.type === 'password' ? null : credential.label;
                  const removable = isRemovable(credential.type) ? credential.type : null;
                  return (
                    <li
                      key={credential.id}
                      className="atrium-profile__credential"
                      data-testid="security-credential"
                      data-type={credential.type}
                    >
                      <span>
                        <strong>{label ?? kind}</strong>
                        {label && <> · {kind}</>}
                        {credential.createdAt && (
                          <>
                            <br />
                            <span className="atrium-profile__muted">
                              {credential.type === 'password' ? 'Set' : 'Added'}{' '}
                              {formatTime(credential.createdAt)}
                            </span>
                          </>
                        )}
                      </span>
                      {removable && (
                        <Button
                          variant="secondary"
                          data-testid="security-remove-credential"
                          aria-label={`Remove ${credentialName(credential.type)} ${credential.label ?? ''}`.trim()}
                          disabled={leaving}
                          onClick={() =>
                            start({
                              name: 'delete_credential',
                              credentialId: credential.id,
                              credentialType: removable,
                            })
                          }
                        >
                          Remove
                        </Button>
                      )}
                    </li>
                  );
                })}
              </ul>
              {factors.length === 0 && (
                <p className="atrium-profile__muted" data-testid="security-no-factors">
                  No passkey or authenticator app yet. A passkey signs you in without a password; an
                  authenticator app adds a code after it.
                </p>
              )}
            </>
          )}
        </ResourceView>
      )}
      <p className="atrium-profile__muted">These open Atrium's sign-in service and bring you back here.</p>
      <div className="atrium-profile__actions">
        {ACTIONS.map(({ action, label, testId }) => (
          <Button
            key={action}
            variant="secondary"
            data-testid={testId}
            disabled={leaving}
            onClick={() => start(action)}
          >
            {label}
          </Button>
        ))}
      </div>
    </Card>
  );
}
