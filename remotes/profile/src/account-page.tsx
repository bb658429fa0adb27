import { ApiNetworkError, ApiProblemError, useApi, type MeDocument } from '@atrium/sdk';
import { useEffect, useState } from 'react';
import { PreferencesForm } from './preferences-form';

type MeState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly me: MeDocument }
  | { readonly status: 'failed'; readonly error: unknown };

// The identity provider may have no display name or e-mail for a person (the API then answers null).
const NOT_PROVIDED = 'Not provided';

export function AccountPage() {
  const api = useApi();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<MeState>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    api.GET('/api/me', { signal: controller.signal }).then(
      (me) => setState({ status: 'ready', me }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ status: 'failed', error });
      },
    );
    return () => controller.abort();
  }, [api, attempt]);

  return (
    <div className="atrium-profile">
      <h1>Your account</h1>
      {state.status === 'loading' && (
        <p role="status" className="atrium-profile__muted">
          Loading your account…
        </p>
      )}
      {state.status === 'failed' && (
        <div role="alert" className="atrium-profile__error">
          <p>{describeLoadError(state.error)}</p>
          <button
            type="button"
            className="atrium-profile__button"
            onClick={() => {
              setState({ status: 'loading' });
              setAttempt((value) => value + 1);
            }}
          >
            Retry
          </button>
        </div>
      )}
      {state.status === 'ready' && (
        <>
          <section aria-labelledby="profile-details-heading" className="atrium-profile__card">
            <h2 id="profile-details-heading">Details</h2>
            <dl className="atrium-profile__details">
              <dt>Name</dt>
              <dd data-testid="profile-name">{state.me.name ?? NOT_PROVIDED}</dd>
              <dt>Username</dt>
              <dd data-testid="profile-username">{state.me.username}</dd>
              <dt>E-mail</dt>
              <dd data-testid="profile-email">{state.me.email ?? NOT_PROVIDED}</dd>
              <dt>Roles</dt>
              <dd data-testid="profile-roles">
                {state.me.roles.length === 0 ? (
                  'None'
                ) : (
                  <ul className="atrium-profile__roles">
                    {state.me.roles.map((role) => (
                      <li key={role}>{role}</li>
                    ))}
                  </ul>
                )}
              </dd>
            </dl>
          </section>
          <PreferencesForm
            key={state.me.sub}
            preferences={state.me.preferences}
            onSaved={(me) => setState({ status: 'ready', me })}
          />
        </>
      )}
    </div>
  );
}

function describeLoadError(error: unknown): string {
  if (error instanceof ApiNetworkError)
    return 'We could not reach the Atrium API. Check that it is running, then retry.';
  if (error instanceof ApiProblemError) {
    return `Your account could not be loaded: ${error.detail ?? error.title} (HTTP ${error.status}).`;
  }
  return 'Your account could not be loaded.';
}
