import type { MeDocument } from '@atrium/sdk';
import { Card, Page, ResourceView, useApiResource } from '@atrium/sdk/ui';
import { PreferencesForm } from './preferences-form';

// The identity provider may have no display name or e-mail for a person (the API then answers null).
const NOT_PROVIDED = 'Not provided';

export function AccountPage() {
  const me = useApiResource<MeDocument>('/api/me');
  return (
    <Page title="Your account">
      <ResourceView resource={me} loading="Loading your account…" failed="Your account could not be loaded">
        {(person) => (
          <div className="atrium-profile__cards">
            <Card heading="Details">
              <dl className="atrium-profile__details">
                <dt>Name</dt>
                <dd data-testid="profile-name">{person.name ?? NOT_PROVIDED}</dd>
                <dt>Username</dt>
                <dd data-testid="profile-username">{person.username}</dd>
                <dt>E-mail</dt>
                <dd data-testid="profile-email">{person.email ?? NOT_PROVIDED}</dd>
                <dt>Roles</dt>
                <dd data-testid="profile-roles">
                  {person.roles.length === 0 ? (
                    'None'
                  ) : (
                    <ul className="atrium-profile__roles">
                      {person.roles.map((role) => (
                        <li key={role}>{role}</li>
                      ))}
                    </ul>
                  )}
                </dd>
              </dl>
            </Card>
            <PreferencesForm key={person.sub} preferences={person.preferences} onSaved={me.setData} />
          </div>
        )}
      </ResourceView>
    </Page>
  );
}
