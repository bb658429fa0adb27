import { useApi, type AccountSessions, type SignedOutSessions } from '@atrium/sdk';
import {
  Alert,
  Button,
  Card,
  describeApiError,
  ResourceView,
  useApiResource,
  useAsyncAction,
} from '@atrium/sdk/ui';
import { useState } from 'react';
import { AccountAccessNeeded, needsAccountAccess } from './account-access-needed';
import { formatTime } from './format-time';

/** Where the person is signed in, with "End your other sessions". */
export function SessionsCard() {
  const api = useApi();
  const sessions = useApiResource<AccountSessions>('/api/account/sessions');
  const signOut = useAsyncAction();
  const [signedOut, setSignedOut] = useState<number | null>(null);

  const others = sessions.data?.sessions.filter((session) => !session.current).length ?? 0;
  const signOutOthers = async () => {
    setSignedOut(null);
    const outcome = await signOut.run(() =>
      api.post<SignedOutSessions>('/api/account/sessions/sign-out-others'),
    );
    if (outcome.ok) {
      setSignedOut(outcome.value.signedOut);
      sessions.refetch();
    }
  };

  return (
    <Card heading="Where you are signed in">
      {sessions.status === 'failed' && needsAccountAccess(sessions.error) ? (
        <AccountAccessNeeded what="where you are signed in" />
      ) : (
        <ResourceView
          resource={sessions}
          loading="Loading your sessions…"
          failed="Your sessions could not be loaded"
        >
          {(data) => (
            <ul className="atrium-profile__list" data-testid="security-sessions">
              {data.sessions.map((session) => (
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
        </ResourceView>
      )}
      {/* The button is disabled once no other session is left: focus goes to what it did. */}
      {signOut.status === 'done' && signedOut !== null && (
        <Alert tone="success" autoFocus data-testid="security-signed-out">
          {signedOut === 0
            ? 'There were no other sessions.'
            : `Signed out ${signedOut} other session${signedOut === 1 ? '' : 's'}.`}
        </Alert>
      )}
      {signOut.status === 'failed' && (
        <Alert>{describeApiError(signOut.error, 'The other sessions could not be signed out')}</Alert>
      )}
      <Button
        data-testid="security-sign-out-others"
        disabled={signOut.busy || sessions.status !== 'ready' || others === 0}
        onClick={() => void signOutOthers()}
      >
        End your other sessions
      </Button>
    </Card>
  );
}
