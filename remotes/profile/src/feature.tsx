import type { RemoteModule } from '@atrium/sdk';
import { AccountPage } from './account-page';
import { SecuritySection } from './security/security-section';
import './profile.css';

/** The profile remote's public surface: the one component the shell mounts at its route. */
export const Feature: RemoteModule['Feature'] = function ProfileFeature() {
  return (
    <>
      <AccountPage />
      <SecuritySection />
      <footer className="atrium-profile__release" data-testid="remote-release">
        profile {__RELEASE_VERSION__}
      </footer>
    </>
  );
};
