import { useApi, type AccountSessions, type SignedOutSessions } from '@atrium/sdk';
import { useState } from 'react';
import { AccountAccessNeeded, needsAccountAccess } from './account-access-needed';
import { describeAccountError } from './describe-error';
import { formatTime } from './format-time';
import { useAccountResource } from './use-account-resource';

/** Where the person is signed in, with "End your other sessions". */
export function SessionsCard() {
  const api = useApi();
  const { state, reload } = useAccountResource<AccountSessions>('/api/account/sessions');
  const [action, setAction] = useState<
    | { status: 'idle' }
    | { status: 'busy' }
    | { status: 'done'; count: number }
    | { status: 'failed'; error: unknown }
  >({ status: 'idle' });

  const others =
    state.status === 'ready' ? state.value.sessions.filter((session) => !session.current).length : 0;
  const signOutOthers = () => {
    setAction({ status: 'busy' });
    api.post<SignedOutSessions>('/api/account/sessions/sign-out-others').then(
      (result) => {
        setAction({ status: 'done', count: result.signedOut });
        reload();
      },
      (error: unknown) => setAction({ status: 'failed', error }),
    );
  };

  return (
    <section aria-labelledby="security-sessions-heading" className="atrium-profile__card">
      <h2 id="security-sessions-heading">Where you are signed in</h2>
      {state.status === 'loading' && <p className="atrium-profile__muted">Loading your sessions…</p>}
      {state.status === 'failed' && needsAccountAccess(state.error) && (
        <AccountAccessNeeded what="where you are signed in" />
      )}
      {state.status === 'failed' && !needsAccountAccess(state.error) && (
        <div role="alert" className="atrium-profile__error">
          <p>{describeAccountError(state.error, 'Your sessions could not be loaded')}</p>
          <button type="button" className="atrium-profile__button" onClick={reload}>
            Retry
          </button>
        </div>
      )}
      {state.status === 'ready' && (
        <ul className="atrium-profile__list" data-testid="security-sessions">
          {state.value.sessions.map((session) => (
            <li key={session.id} data-testid="security-session" data-current={session.current}>
              <strong>{session.current ? 'This browser' : 'Another browser or device'}</strong>
              {session.ipAddress && <> · {session.ipAddress}</>}
              <br />
              <span className="atrium-profile__muted">
                Signed in {formatTime(session.startedAt)}, last active {formatTime(session.lastAccessAt)}
              </span>
            </li>
          ))}
        </ul>
      )}
      {action.status === 'done' && (
        <p role="status" data-testid="security-signed-out">
          {action.count === 0
            ? 'There were no other sessions.'
            : `Signed out ${action.count} other session${action.count === 1 ? '' : 's'}.`}
        </p>
      )}
      {action.status === 'failed' && (
        <p role="alert" className="atrium-profile__error">
          {describeAccountError(action.error, 'The other sessions could not be signed out')}
        </p>
      )}
      <button
        type="button"
        className="atrium-profile__button"
        data-testid="security-sign-out-others"
        disabled={action.status === 'busy' || state.status !== 'ready' || others === 0}
        onClick={signOutOthers}
      >
        End your other sessions
      </button>
    </section>
  );
}
