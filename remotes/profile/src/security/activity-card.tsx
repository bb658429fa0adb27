import type { AccountActivity, SecurityEvent } from '@atrium/sdk';
import { SECURITY_EVENT_WORDS } from '@atrium/sdk/security-event-words';
import { Card, ResourceView, useApiResource } from '@atrium/sdk/ui';
import { credentialName } from './credential-names';
import { formatTime } from './format-time';

function describe(event: SecurityEvent): string {
  const credential = event.credential ? credentialName(event.credential) : null;
  return credential && event.type !== 'LOGIN' && event.type !== 'LOGIN_ERROR'
    ? `${SECURITY_EVENT_WORDS[event.type]} (${credential})`
    : SECURITY_EVENT_WORDS[event.type];
}

/** Recent sign-ins, failed sign-ins and credential changes, from Keycloak's events. */
export function ActivityCard() {
  const activity = useApiResource<AccountActivity>('/api/account/activity');
  return (
    <Card heading="Recent security activity">
      <ResourceView
        resource={activity}
        loading="Loading activity…"
        failed="Your activity could not be loaded"
      >
        {({ items }) =>
          items.length === 0 ? (
            <p className="atrium-profile__muted">No recent activity.</p>
          ) : (
            <ul className="atrium-profile__list" data-testid="security-activity">
              {items.map((event, index) => (
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
          )
        }
      </ResourceView>
    </Card>
  );
}
