import type { AccountAccessGrant, AccountAccessRedirect, AccountAccessRequest, ApiClient } from '@atrium/sdk';
import { ACCOUNT_ACCESS_PATH } from './account-access-callback';
import { safeReturnTo } from './oidc';

/** Where the page to come back to waits, in this tab, while the person is at Keycloak. */
const RETURN_TO_KEY = 'atrium.accountAccessReturnTo';

export interface AccountAccessRequestOptions {
  readonly api: ApiClient;
  /** The identity provider's authorization endpoint, from its discovery document: the only place the shell goes. */
  readonly authorizationEndpoint: string;
  /** The in-app path to come back to. */
  readonly returnTo: string;
  readonly location?: Pick<Location, 'origin' | 'assign'>;
  readonly storage?: Storage;
}

/**
 * Sends the browser to Keycloak so that the person's session grants the API their own token for Keycloak's
 * account API: the API makes the authorization request (its client, its PKCE verifier, its sealed state) and
 * the shell only carries it. A URL anywhere but the identity provider's authorization endpoint is refused.
 */
export async function requestAccountAccess({
  api,
  authorizationEndpoint,
  returnTo,
  location = window.location,
  storage = sessionStorage,
}: AccountAccessRequestOptions): Promise<void> {
  const body: AccountAccessRequest = { redirectUri: `${location.origin}${ACCOUNT_ACCESS_PATH}` };
  const { authorizationUrl } = await api.post<AccountAccessRedirect>('/api/account/access-request', body);
  const url = new URL(authorizationUrl);
  if (`${url.origin}${url.pathname}` !== authorizationEndpoint) {
    throw new Error(`Not the identity provider's authorization endpoint: ${url.origin}${url.pathname}`);
  }
  storage.setItem(RETURN_TO_KEY, returnTo);
  location.assign(url.href);
}

/**
 * On {@link ACCOUNT_ACCESS_PATH}: hands Keycloak's answer to the API, which alone can redeem it, and returns the
 * page to go back to. A refusal (an answer Keycloak or the API did not accept) is left to that page, which asks
 * again; the answer leaves the address bar either way.
 */
export async function completeAccountAccess(
  api: ApiClient,
  search: string,
  storage: Storage = sessionStorage,
): Promise<string> {
  const returnTo = safeReturnTo({ returnTo: storage.getItem(RETURN_TO_KEY) }, ACCOUNT_ACCESS_PATH);
  storage.removeItem(RETURN_TO_KEY);
  const params = new URLSearchParams(search);
  const code = params.get('code');
  const state = params.get('state');
  if (code !== null && state !== null) {
    const body: AccountAccessGrant = { code, state };
    await api.post<void>('/api/account/access', body).catch(() => undefined);
  }
  return returnTo;
}
