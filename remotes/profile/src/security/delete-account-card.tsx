import { useAccountActions, useAtrium } from '@atrium/sdk';
import { Alert, Button, Card, Field, FormRow } from '@atrium/sdk/ui';
import { useState, type FormEvent } from 'react';

/**
 * Deleting the account: once the person typed their username, Keycloak's own Delete Account action
 * (kc_action=delete_account) asks for their password again and for a confirmation on its page, then deletes
 * them; Atrium erases what it keeps about them when Keycloak reports it. Cancelled there, the person comes
 * back here and nothing changed.
 */
export function DeleteAccountCard() {
  const actions = useAccountActions();
  const { user } = useAtrium();
  const [typed, setTyped] = useState('');
  const [leaving, setLeaving] = useState(false);
  const result = actions.lastResult?.action === 'delete_account' ? actions.lastResult : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setLeaving(true);
    void actions.run('delete_account').catch(() => setLeaving(false));
  };

  return (
    <Card heading="Delete the account">
      <p>
        This removes your sign-in, your sessions and everything Atrium keeps about you. It cannot be undone.
        Atrium's sign-in service asks for your password again and for your confirmation.
      </p>
      {result && result.status !== 'success' && (
        <Alert
          tone={result.status === 'error' ? 'error' : 'info'}
          data-testid="security-delete-result"
          data-status={result.status}
        >
          <p className="atrium-alert__text">
            {result.status === 'cancelled'
              ? 'Your account was not deleted: you cancelled.'
              : 'Your account was not deleted. Please try again.'}
          </p>
          <Button variant="secondary" onClick={actions.dismissResult}>
            Dismiss
          </Button>
        </Alert>
      )}
      <form onSubmit={submit}>
        <FormRow>
          <Field
            label={
              <>
                Type your username, <strong>{user.username}</strong>, to confirm
              </>
            }
            data-testid="security-delete-confirmation"
            autoComplete="off"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
          />
          <Button
            type="submit"
            variant="danger"
            data-testid="security-delete-account"
            disabled={typed !== user.username || leaving}
          >
            Delete my account
          </Button>
        </FormRow>
      </form>
    </Card>
  );
}
