import { useAccountActions, type AccountAction, type AccountActionResult } from '@atrium/sdk';
import { useState } from 'react';

const ACTIONS: readonly { action: AccountAction; label: string; done: string; testId: string }[] = [
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

function describeResult(result: AccountActionResult): string {
  const entry = ACTIONS.find((candidate) => candidate.action === result.action);
  const label = entry?.label.toLowerCase() ?? result.action;
  if (result.status === 'success') return entry?.done ?? 'Done.';
  if (result.status === 'cancelled') return `Nothing changed: you cancelled "${label}".`;
  return `"${entry?.label ?? result.action}" did not complete. Nothing changed; please try again.`;
}

/** Change password, add a passkey, set up an authenticator app: each on Keycloak's own screens. */
export function SignInMethods() {
  const actions = useAccountActions();
  const [leaving, setLeaving] = useState(false);
  const result = actions.lastResult;
  return (
    <section aria-labelledby="security-methods-heading" className="atrium-profile__card">
      <h2 id="security-methods-heading">Signing in</h2>
      {result && (
        <div
          role={result.status === 'error' ? 'alert' : 'status'}
          data-testid="security-action-result"
          data-status={result.status}
          className={result.status === 'error' ? 'atrium-profile__error' : 'atrium-profile__notice'}
        >
          <p>{describeResult(result)}</p>
          <button type="button" className="atrium-profile__button" onClick={actions.dismissResult}>
            Dismiss
          </button>
        </div>
      )}
      <p className="atrium-profile__muted">These open Atrium's sign-in service and bring you back here.</p>
      <div className="atrium-profile__actions">
        {ACTIONS.map(({ action, label, testId }) => (
          <button
            key={action}
            type="button"
            className="atrium-profile__button"
            data-testid={testId}
            disabled={leaving}
            onClick={() => {
              setLeaving(true);
              void actions.run(action).catch(() => setLeaving(false));
            }}
          >
            {label}
          </button>
        ))}
      </div>
    </section>
  );
}
