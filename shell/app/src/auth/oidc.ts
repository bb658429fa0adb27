import type { AccountAction, AtriumUser } from '@atrium/sdk';
import { IndexedDbDPoPStore, WebStorageStateStore, type StateStore, type User } from 'oidc-client-ts';
import type { RuntimeConfig } from '../config/runtime-config';
import { DPoPKeyCache, type DPoPStore } from './dpop-key-cache';
import { readJwtClaims } from './jwt-claims';
import { IDENTITY_PROVIDER_TIMEOUT_SECONDS } from './identity-provider';
import { IndexedDbStateStore } from './indexed-db-state-store';
import { SharedUserManager, type SessionSharing } from './shared-user-manager';

/** What the shell stores in the OIDC `state` parameter across the round trip to Keycloak. */
export interface SigninState {
  readonly returnTo: string;
  /** Set when the round trip runs one of Keycloak's account actions (auth/account-actions.ts). */
  readonly accountAction?: AccountAction;
}

/** Where the shell's OIDC client keeps things; the defaults are the browser's. */
export interface UserManagerEnvironment {
  readonly origin?: string;
  /**
   * Where the DPoP key pair lives; defaults to IndexedDB, shared by the tabs of the origin, read once per page
   * ({@link DPoPKeyCache}).
   */
  readonly dpopStore?: DPoPStore;
  /** Where the signed-in user lives; defaults to IndexedDB, shared by the tabs of the origin. */
  readonly userStore?: StateStore;
  readonly sharing?: SessionSharing;
}

export type { DPoPStore };

/**
 * The shell's OIDC client. Tokens are DPoP-bound (RFC 9449) to a non-extractable key kept in IndexedDB, so
 * a token copied out of the page is useless elsewhere; the session is shared by every tab of the origin and
 * renewed by one tab at a time (see {@link SharedUserManager}).
 */
export function createUserManager(
  config: RuntimeConfig,
  {
    origin = window.location.origin,
    dpopStore = new DPoPKeyCache(new IndexedDbDPoPStore()),
    userStore = new IndexedDbStateStore(),
    sharing,
  }: UserManagerEnvironment = {},
): SharedUserManager {
  return new SharedUserManager(
    {
      authority: config.oidc.authority,
      client_id: config.oidc.clientId,
      redirect_uri: `${origin}${config.oidc.redirectPath}`,
      post_logout_redirect_uri: `${origin}${config.oidc.postLogoutPath}`,
      response_type: 'code',
      // No offline_access: a refresh token must die with the Keycloak session and with sign-out.
      scope: 'openid profile email',
      // The key signs every token request and every API request; binding the authorization code to it too
      // (dpop_jkt) means only this browser can redeem the code.
      dpop: { store: dpopStore, bind_authorization_code: true },
      // Shared by the tabs of this origin, so they renew one session instead of racing with their own
      // rotating refresh tokens; survives a reload. Worth little when copied: the tokens are bound to the key.
      userStore,
      // The sign-in round trip belongs to the tab that started it.
      stateStore: new WebStorageStateStore({ store: window.sessionStorage }),
      // Renews with the refresh token shortly before the access token expires. Kept below any sensible
      // token lifespan (Keycloak's default is 300 s): at or above it, renewal would start again at once.
      automaticSilentRenew: true,
      accessTokenExpiringNotificationTimeInSeconds: 20,
      // A Keycloak that does not answer is reported, not waited on forever: every request to it gives up
      // after this long, and a renewal that timed out is reported at once (the shell's session lifecycle
      // waits for Keycloak and renews again) instead of being retried in silence.
      requestTimeoutInSeconds: IDENTITY_PROVIDER_TIMEOUT_SECONDS,
      maxSilentRenewTimeoutRetries: 0,
      // The shell reads the profile from the ID token and the API; the userinfo round trip adds nothing.
      loadUserInfo: false,
    },
    sharing,
  );
}

/** The current in-app location, used as the place to return to after sign-in. */
export function currentLocation(location: Location = window.location): string {
  return `${location.pathname}${location.search}${location.hash}`;
}

// C0 controls, DEL and the C1 controls.
// eslint-disable-next-line no-control-regex
const UNSAFE_URL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Accepts only same-origin absolute paths from the round-tripped state, so a crafted `state` cannot turn
 * the callback into an open redirect.
 */
export function safeReturnTo(state: unknown, callbackPath: string): string {
  const returnTo =
    typeof state === 'object' && state !== null ? (state as Partial<SigninState>).returnTo : undefined;
  if (typeof returnTo !== 'string' || !returnTo.startsWith('/') || returnTo.startsWith('//')) return '/';
  // Browsers read `\` as `/` and drop tabs and line breaks from URLs, so `/\evil.test` or `/<TAB>/evil.test`
  // would become `//evil.test`, another origin. No in-app path needs either.
  if (returnTo.includes('\\') || UNSAFE_URL_CHARACTERS.test(returnTo)) return '/';
  if (returnTo === callbackPath || returnTo.startsWith(`${callbackPath}?`)) return '/';
  return returnTo;
}

export function toAtriumUser(user: User): AtriumUser {
  const profile = user.profile;
  const username = profile.preferred_username ?? profile.sub;
  return {
    sub: profile.sub,
    username,
    name: profile.name ?? ([profile.given_name, profile.family_name].filter(Boolean).join(' ') || username),
    email: profile.email,
    // Display-only: the roles shown in the header come from the token the API verifies anyway.
    roles: readRealmRoles(profile) ?? readRealmRoles(readJwtClaims(user.access_token)) ?? [],
  };
}

function readRealmRoles(claims: unknown): string[] | undefined {
  if (typeof claims !== 'object' || claims === null) return undefined;
  const realmAccess = (claims as { realm_access?: { roles?: unknown } }).realm_access;
  const roles = realmAccess?.roles;
  return Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string') : undefined;
}
