import { createApiClient, type ApiClient, type ApiClientOptions } from '@atrium/sdk';
import type { User, UserManager } from 'oidc-client-ts';
import { isUnreachable } from './identity-provider';

// Renew a little before expiry so a token never lapses between the check and the API's own check.
const MIN_TOKEN_SECONDS = 15;

/** Thrown when the session cannot be renewed; the shell then sends the person through sign-in. */
export class SessionEndedError extends Error {
  override readonly name = 'SessionEndedError';
  constructor(options?: { cause?: unknown }) {
    super('Your session has ended. Please sign in again.', options);
  }
}

/** Thrown when a token is needed and Keycloak does not answer; the session is kept. */
export class IdentityProviderUnreachableError extends Error {
  override readonly name = 'IdentityProviderUnreachableError';
  constructor(options?: { cause?: unknown }) {
    super("Can't reach the sign-in service right now. Try again in a moment.", options);
  }
}

/**
 * What the sdk's API client needs to authorise requests, built on the shell's `UserManager`: a valid access
 * token (renewed first when close to expiry) and a DPoP proof for exactly the request, signed with the key the
 * token is bound to. The key never leaves oidc-client-ts's store; remotes only ever see the API client.
 */
export function createApiAuthorization(
  userManager: UserManager,
): Pick<ApiClientOptions, 'authorize' | 'renewAuthorization'> {
  async function renew(): Promise<User> {
    let renewed: User | null = null;
    let failure: unknown;
    try {
      renewed = await userManager.signinSilent();
    } catch (error) {
      failure = error;
    }
    if (renewed !== null) return renewed;
    // Keycloak did not answer: the session may well be alive. The person keeps the page (the shell's banner
    // says what is wrong, and renewal runs again once Keycloak answers); only this request fails.
    if (isUnreachable(failure)) throw new IdentityProviderUnreachableError({ cause: failure });
    // The refresh token is gone or refused, so the session is over. Unloading the user makes the auth gate
    // send the person to Keycloak, back to this page afterwards.
    await userManager.removeUser();
    throw new SessionEndedError({ cause: failure });
  }

  async function currentUser(): Promise<User> {
    const user = await userManager.getUser();
    if (user && !user.expired && (user.expires_in ?? 0) > MIN_TOKEN_SECONDS) return user;
    return renew();
  }

  return {
    async authorize({ method, url }) {
      const user = await currentUser();
      const proof = await userManager.dpopProof(url, user, method);
      // Without its key the token is useless to the API, and the sdk would refuse to send it anyway.
      if (proof === undefined) throw new SessionEndedError();
      return { authorization: `DPoP ${user.access_token}`, dpop: proof };
    },
    async renewAuthorization() {
      await renew();
    },
  };
}

/** What the shell's own code may use of an API client it made: where it sends, and how it authorises. */
export interface ApiAuthority {
  /** The API's base URL, as the client appends paths to it. */
  readonly baseUrl: string;
  readonly authorize: ApiClientOptions['authorize'];
}

const authorities = new WeakMap<ApiClient, ApiAuthority>();

/**
 * The API client of the session (app/session.ts). Remotes get the client only; the shell's field telemetry
 * also gets its authority ({@link authorityOf}), to sign its page-hide report ahead of time.
 */
export function createShellApiClient(
  baseUrl: string,
  userManager: UserManager,
  trace?: ApiClientOptions['trace'],
): ApiClient {
  const authorization = createApiAuthorization(userManager);
  const api = createApiClient({ baseUrl, ...authorization, ...(trace ? { trace } : {}) });
  authorities.set(api, { baseUrl: baseUrl.replace(/\/+$/, ''), authorize: authorization.authorize });
  return api;
}

/** The authority behind a client {@link createShellApiClient} made; none for any other client. */
export function authorityOf(api: ApiClient): ApiAuthority | undefined {
  return authorities.get(api);
}
