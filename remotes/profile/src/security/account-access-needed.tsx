import { ApiProblemError, useAccountActions } from '@atrium/sdk';
import { Alert, Button, describeApiError } from '@atrium/sdk/ui';
import { useState } from 'react';

/** Whether a failed account request only needs the person's permission at Keycloak (`account_access_required`). */
export function needsAccountAccess(error: unknown): boolean {
  return error instanceof ApiProblemError && error.code === 'account_access_required';
}

/**
 * What a card shows when Atrium may not act on the person's account at Keycloak yet: why, and the way to Keycloak
 * and back (while the person is signed in there, Keycloak asks nothing and returns at once).
 */
export function AccountAccessNeeded({ what }: { readonly what: string }) {
  const actions = useAccountActions();
  const [state, setState] = useState<{ status: 'idle' | 'leaving' } | { status: 'failed'; error: unknown }>({
    status: 'idle',
  });
  const start = () => {
    setState({ status: 'leaving' });
    actions.requestAccess().catch((error: unknown) => setState({ status: 'failed', error }));
  };
  return (
    <div className="atrium-profile__notice" data-testid="security-access-needed">
      <p>
        To show {what}, Atrium acts on your account at its sign-in service with your own permission, which
        your sign-in there gives it. Nobody else can give it.
      </p>
      {state.status === 'failed' && (
        <Alert>{describeApiError(state.error, 'Atrium could not ask for your permission')}</Alert>
      )}
      <Button data-testid="security-continue-access" disabled={state.status === 'leaving'} onClick={start}>
        Continue at the sign-in service
      </Button>
    </div>
  );
}
