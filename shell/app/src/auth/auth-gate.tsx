import { useEffect, useRef, type ReactNode } from 'react';
import { hasAuthParams, useAuth, type ErrorContext } from 'react-oidc-context';
import { StatusPanel } from '../layout/status-panel';
import { currentLocation, type SigninState } from './oidc';

export interface AuthGateProps {
  readonly authority: string;
  /**
   * The session ended in another tab (sign-out there signs out here too). The gate then asks before signing
   * in again: redirecting at once could reach Keycloak before that tab's sign-out does, and sign straight back in.
   */
  readonly signedOutElsewhere?: boolean;
  readonly children: ReactNode;
}

/**
 * Renders its children only for a signed-in person. Everyone else is sent to Keycloak straight away
 * (remembering where they were going); every step in between has a visible state.
 */
export function AuthGate({ authority, signedOutElsewhere = false, children }: AuthGateProps) {
  const auth = useAuth();
  const blockingError = isBlocking(auth.error) ? auth.error : undefined;
  const signedOut = signedOutElsewhere && !auth.isAuthenticated && !auth.activeNavigator;
  const needsSignIn =
    !auth.isLoading &&
    !auth.isAuthenticated &&
    !auth.activeNavigator &&
    !blockingError &&
    !hasAuthParams() &&
    !signedOut;

  const signIn = (returnTo: string) => {
    const state: SigninState = { returnTo };
    void auth.signinRedirect({ state });
  };

  // StrictMode runs effects twice; the ref keeps that from starting two redirects.
  const redirecting = useRef(false);
  useEffect(() => {
    if (!needsSignIn) {
      redirecting.current = false;
      return;
    }
    if (redirecting.current) return;
    redirecting.current = true;
    const state: SigninState = { returnTo: currentLocation() };
    void auth.signinRedirect({ state });
  }, [needsSignIn, auth]);

  if (auth.isAuthenticated) return children;
  if (signedOut) {
    return (
      <StatusPanel
        kind="info"
        title="You have been signed out"
        detail="Your Atrium session ended in another tab or window."
        action={{ label: 'Sign in again', onClick: () => signIn(currentLocation()) }}
      />
    );
  }
  if (auth.activeNavigator === 'signinRedirect' || (!blockingError && auth.isLoading) || needsSignIn) {
    return <StatusPanel kind="loading" title="Signing you in…" />;
  }
  if (blockingError?.source === 'signinCallback') {
    return (
      <StatusPanel
        kind="error"
        title="Sign-in could not be completed"
        detail={`Keycloak answered: ${blockingError.message}. Please sign in again.`}
        action={{ label: 'Sign in again', onClick: () => signIn('/') }}
      />
    );
  }
  if (blockingError !== undefined) {
    return (
      <StatusPanel
        kind="error"
        title="The sign-in service is unreachable"
        detail={`Could not contact ${authority} (${blockingError.message}). Check that it is running, then retry.`}
        action={{ label: 'Retry', onClick: () => signIn(currentLocation()) }}
      />
    );
  }
  return <StatusPanel kind="loading" title="Signing you in…" />;
}

// Silent-renew failures are not blocking: the person stays on the page and is sent to sign in only
// once a request actually needs a token it cannot get.
function isBlocking(error: ErrorContext | undefined): error is ErrorContext {
  return error?.source === 'signinCallback' || error?.source === 'signinRedirect';
}
