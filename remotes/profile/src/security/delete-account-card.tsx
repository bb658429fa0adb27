import { useApi, useAtrium, type AccountDeletionRequest } from '@atrium/sdk';
import { useId, useState, type FormEvent } from 'react';
import { describeAccountError } from './describe-error';

/** Deleting the account, once the person typed their username. */
export function DeleteAccountCard() {
  const api = useApi();
  const { user, signOut } = useAtrium();
  const inputId = useId();
  const [typed, setTyped] = useState('');
  const [state, setState] = useState<{ status: 'idle' | 'busy' } | { status: 'failed'; error: unknown }>({
    status: 'idle',
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setState({ status: 'busy' });
    const body: AccountDeletionRequest = { confirmation: typed };
    api.post<void>('/api/account/deletion', body).then(
      () => void signOut(),
      (error: unknown) => setState({ status: 'failed', error }),
    );
  };

  return (
    <section aria-labelledby="security-delete-heading" className="atrium-profile__card">
      <h2 id="security-delete-heading">Delete the account</h2>
      <p>
        This removes your sign-in, your sessions and everything Atrium keeps about you. It cannot be undone.
      </p>
      <form onSubmit={submit}>
        <label htmlFor={inputId}>
          Type your username, <strong>{user.username}</strong>, to confirm
        </label>
        <input
          id={inputId}
          data-testid="security-delete-confirmation"
          autoComplete="off"
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
        />
        {state.status === 'failed' && (
          <p role="alert" className="atrium-profile__error">
            {describeAccountError(state.error, 'Your account was not deleted')}
          </p>
        )}
        <button
          type="submit"
          className="atrium-profile__button atrium-profile__button--danger"
          data-testid="security-delete-account"
          disabled={typed !== user.username || state.status === 'busy'}
        >
          Delete my account
        </button>
      </form>
    </section>
  );
}
