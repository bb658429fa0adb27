import { useDeferredValue, useEffect, useRef, type ReactNode } from 'react';
import { useAuth, type ErrorContext } from 'react-oidc-context';
import { hasSigninAnswer } from './account-access-callback';
import { StatusPanel } from '../layout/status-panel';
import { isUnreachable } from './identity-provider';
import {
  UNREACHABLE_TITLE,
  unreachableDetail,
  useIdentityProviderMonitor,
  useIdentityProviderState,
} from './identity-provider-notice';
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
  const monitor = useIdentityProviderMonitor();
  const identityProvider = useIdentityProviderState(monitor);
  const blockingError = isBlocking(auth.error) ? auth.error : undefined;
  // Keycloak did not answer the sign-in (down, or slower than the request timeout): the monitor checks it
  // with backoff and the sign-in starts again by itself once it answers.
  const unreachable =
    blockingError?.source === 'signinRedirect' && isUnreachable(blockingError.innerError ?? blockingError);
  const signedOut = signedOutElsewhere && !auth.isAuthenticated && !auth.activeNavigator;
  const needsSignIn =
    !auth.isLoading &&
    !auth.isAuthenticated &&
    !auth.activeNavigator &&
    !blockingError &&
    !hasSigninAnswer() &&
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

  // Keyed on the error itself, so a sign-in that fails again after a recovery waits again.
  const unreachableError = unreachable ? blockingError : undefined;
  // react-oidc-context binds its navigators to the UserManager once; unlike `auth`, this one stays the same.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  const { signinRedirect } = auth;
  useEffect(() => {
    if (unreachableError === undefined) return;
    let current = true;
    void monitor.reportUnreachable('sign-in').then(() => {
      if (!current) return;
      const state: SigninState = { returnTo: currentLocation() };
      void signinRedirect({ state });
    });
    return () => {
      current = false;
    };
  }, [unreachableError, monitor, signinRedirect]);

  // The signed-in shell's first render is long; as a deferred render React does it in slices, between which the
  // page goes on with its own work (the registry's list arriving, the feature the page opens at loading). Signing
  // out is not deferred.
  const shown = useDeferredValue(auth.isAuthenticated, false);
  if (auth.isAuthenticated) return shown ? children : <StatusPanel kind="loading" title="Signing you in…" />;
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
  if (unreachable) {
    return (
      <StatusPanel
        kind="error"
        title={UNREACHABLE_TITLE}
        detail={`${authority} does not answer. ${unreachableDetail(identityProvider.status === 'unreachable' ? identityProvider.needs : ['sign-in'])}`}
        action={{ label: 'Retry', onClick: () => monitor.retry() }}
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
