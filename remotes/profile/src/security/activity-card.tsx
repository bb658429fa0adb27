import type { AccountActivity, SecurityEvent, SecurityEventType } from '@atrium/sdk';
import { credentialName } from './credential-names';
import { describeAccountError } from './describe-error';
import { formatTime } from './format-time';
import { useAccountResource } from './use-account-resource';

const LABELS: Record<SecurityEventType, string> = {
  LOGIN: 'Signed in',
  LOGIN_ERROR: 'Failed sign-in',
  LOGOUT: 'Signed out',
  REGISTER: 'Account created',
  VERIFY_EMAIL: 'E-mail address verified',
  RESET_PASSWORD: 'Password reset requested',
  UPDATE_PASSWORD: 'Password changed',
  UPDATE_PASSWORD_ERROR: 'Password change failed',
  UPDATE_CREDENTIAL: 'Sign-in method changed',
  UPDATE_CREDENTIAL_ERROR: 'Sign-in method change failed',
  REMOVE_CREDENTIAL: 'Sign-in method removed',
  UPDATE_TOTP: 'Authenticator app set up',
  REMOVE_TOTP: 'Authenticator app removed',
};

function describe(event: SecurityEvent): string {
  const credential = event.credential ? credentialName(event.credential) : null;
  return credential && event.type !== 'LOGIN' && event.type !== 'LOGIN_ERROR'
    ? `${LABELS[event.type]} (${credential})`
    : LABELS[event.type];
}

/** Recent sign-ins, failed sign-ins and credential changes, from Keycloak's events. */
export function ActivityCard() {
  const { state, reload } = useAccountResource<AccountActivity>('/api/account/activity');
  return (
    <section aria-labelledby="security-activity-heading" className="atrium-profile__card">
      <h2 id="security-activity-heading">Recent security activity</h2>
      {state.status === 'loading' && <p className="atrium-profile__muted">Loading activity…</p>}
      {state.status === 'failed' && (
        <div role="alert" className="atrium-profile__error">
          <p>{describeAccountError(state.error, 'Your activity could not be loaded')}</p>
          <button type="button" className="atrium-profile__button" onClick={reload}>
            Retry
          </button>
        </div>
      )}
      {state.status === 'ready' &&
        (state.value.items.length === 0 ? (
          <p className="atrium-profile__muted">No recent activity.</p>
        ) : (
          <ul className="atrium-profile__list" data-testid="security-activity">
            {state.value.items.map((event, index) => (
              <li key={`${event.at}-${index}`} data-type={event.type} data-testid="security-event">
                <strong>{describe(event)}</strong>
                <br />
                <span className="atrium-profile__muted">
                  {formatTime(event.at)}
                  {event.ipAddress && <> · {event.ipAddress}</>}
                </span>
              </li>
            ))}
          </ul>
        ))}
    </section>
  );
}
