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
/** The client each shell client hands remotes: the same session, without the shell's own routes. */
const forRemotes = new WeakMap<ApiClient, ApiClient>();

/**
 * Routes only the shell's own code calls: its field telemetry (reports count as the person's, so a remote's
 * code must not make them), dev overrides (approved for the session, after the person confirmed), and the
 * person's permission at Keycloak for their account. The client remotes get refuses them.
 */
const SHELL_ROUTES = [
  '/api/telemetry',
  '/api/dev-overrides',
  '/api/account/access',
  '/api/account/access-request',
];

function refusedToRemotes(path: string): string | undefined {
  const route = SHELL_ROUTES.find((prefix) => path === prefix || path.startsWith(`${prefix}/`));
  return route && `${route} is the shell's own route; a remote's client does not call it.`;
}

/**
 * The API client of a session. Remotes get the client only; the shell's field telemetry
 * also gets its authority ({@link authorityOf}), to sign its page-hide report ahead of time.
 */
export function createShellApiClient(
  baseUrl: string,
  userManager: UserManager,
  trace?: ApiClientOptions['trace'],
): ApiClient {
  const authorization = createApiAuthorization(userManager);
  const options = { baseUrl, ...authorization, ...(trace ? { trace } : {}) };
  const api = createApiClient(options);
  authorities.set(api, { baseUrl: baseUrl.replace(/\/+$/, ''), authorize: authorization.authorize });
  forRemotes.set(api, createApiClient({ ...options, refuse: refusedToRemotes }));
  return api;
}

/**
 * The client the remotes of a page get (`useApi()` inside a remote's slot): the session's, refusing the routes
 * only the shell's code calls. Any other client is handed on as it is (tests render remotes with their own).
 */
export function clientForRemotes(api: ApiClient): ApiClient {
  return forRemotes.get(api) ?? api;
}

/** The authority behind a client {@link createShellApiClient} made; none for any other client. */
export function authorityOf(api: ApiClient): ApiAuthority | undefined {
  return authorities.get(api);
}
