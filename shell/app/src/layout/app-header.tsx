import type { AtriumUser, RemoteDescriptor } from '@atrium/sdk';
import { Button } from '@atrium/sdk/ui';
import { useState } from 'react';
import { Link, useLocation } from 'wouter';

export interface AppHeaderProps {
  readonly user: AtriumUser;
  readonly remotes: readonly RemoteDescriptor[];
  readonly onSignOut: () => Promise<void>;
}

export function AppHeader({ user, remotes, onSignOut }: AppHeaderProps) {
  const [location] = useLocation();
  const [signingOut, setSigningOut] = useState(false);
  const isCurrent = (path: string) =>
    path === '/' ? location === '/' : location === path || location.startsWith(`${path}/`);

  return (
    <header className="app-header">
      <Link href="/" className="brand">
        Atrium
      </Link>
      <nav aria-label="Main" className="main-nav">
        <ul>
          <li>
            <Link href="/" aria-current={isCurrent('/') ? 'page' : undefined}>
              Home
            </Link>
          </li>
          {remotes.map((remote) => (
            <li key={remote.name}>
              <Link href={remote.path} aria-current={isCurrent(remote.path) ? 'page' : undefined}>
                {remote.title}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div className="account">
        <span className="account-name" data-testid="signed-in-user">
          {user.name}
        </span>
        <Button
          variant="secondary"
          busy={signingOut}
          busyLabel="Signing out…"
          onClick={() => {
            setSigningOut(true);
            onSignOut().catch(() => setSigningOut(false));
          }}
        >
          Sign out
        </Button>
      </div>
    </header>
  );
}
