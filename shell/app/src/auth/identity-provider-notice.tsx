import { Button } from '@atrium/sdk/ui';
import { createContext, useContext, useSyncExternalStore } from 'react';
import type {
  IdentityProviderMonitor,
  IdentityProviderNeed,
  IdentityProviderState,
} from './identity-provider';

const IdentityProviderContext = createContext<IdentityProviderMonitor | null>(null);

/** Gives the shell's auth code the one {@link IdentityProviderMonitor} of this page. */
export const IdentityProviderMonitorProvider = IdentityProviderContext.Provider;

export function useIdentityProviderMonitor(): IdentityProviderMonitor {
  const monitor = useContext(IdentityProviderContext);
  if (monitor === null)
    throw new Error('useIdentityProviderMonitor needs an IdentityProviderMonitorProvider');
  return monitor;
}

/** The monitor's state, re-rendering on every change. */
export function useIdentityProviderState(monitor: IdentityProviderMonitor): IdentityProviderState {
  return useSyncExternalStore(monitor.subscribe, monitor.getSnapshot);
}

export const UNREACHABLE_TITLE = "Can't reach the sign-in service. Retrying…";

/** What the person is told about the work that waits for Keycloak. */
export function unreachableDetail(needs: readonly IdentityProviderNeed[]): string {
  if (needs.includes('sign-out')) return 'You will be signed out as soon as it answers.';
  if (needs.includes('sign-in')) return 'You will be taken to sign in as soon as it answers.';
  return 'You can keep working on this page: Atrium carries on by itself when it answers.';
}

/**
 * A banner over the signed-in shell while Keycloak does not answer: says so in words, offers Retry, and goes
 * away by itself once Keycloak answers. It does not take focus: the person's work on the page goes on.
 */
export function IdentityProviderNotice() {
  const monitor = useIdentityProviderMonitor();
  const state = useIdentityProviderState(monitor);
  if (state.status === 'reachable') return null;
  return (
    <div className="idp-notice" role="alert">
      <p>
        <strong>{UNREACHABLE_TITLE}</strong> {unreachableDetail(state.needs)}
      </p>
      <Button variant="secondary" onClick={() => monitor.retry()}>
        Retry
      </Button>
    </div>
  );
}
