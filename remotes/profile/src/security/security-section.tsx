import './security.css';
import { ActivityCard } from './activity-card';
import { DeleteAccountCard } from './delete-account-card';
import { SessionsCard } from './sessions-card';
import { SignInMethods } from './sign-in-methods';

/** The profile's Security section: sign-in methods, sessions, security activity, deleting the account. */
export function SecuritySection() {
  return (
    <div className="atrium-profile__cards" data-testid="security-section">
      <SignInMethods />
      <SessionsCard />
      <ActivityCard />
      <DeleteAccountCard />
    </div>
  );
}
