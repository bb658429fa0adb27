import { createApiClient, type RemoteDescriptor } from '@atrium/sdk';
import type { UserManager } from 'oidc-client-ts';
import { hasAuthParams } from 'react-oidc-context';
import { createApiAuthorization } from '../../auth/api-authorization';
import { getRemotes } from './remotes-list';

// A session with less than this left is renewed first: not this request's job.
const MIN_TOKEN_SECONDS = 30;

export interface EarlyRemotes {
  /** The registry's list, or undefined: no stored session to ask with, or the request failed. */
  readonly remotes: Promise<readonly RemoteDescriptor[] | undefined>;
  /** Settles once the request has left (its proof signed), or once it was decided not to send it. */
  readonly sent: Promise<void>;
}

/**
 * The registry's list of features for a session stored by an earlier sign-in, asked for as soon as the shell
 * knows where the API is: while react-oidc-context loads that same session and the signed-in shell first
 * renders, which then uses this answer instead of asking again (the catalogue hands it to the first signed-in
 * session it opens, ./remote-catalogue.ts, and adopts it at once). Undefined when there is no such session (a
 * sign-in is completing, or the token needs renewing first), when the session ended or changed while the list
 * was on its way, and when the request fails: the signed-in shell then asks itself, and reports what goes wrong.
 * Never renews a token.
 */
export function requestRemotesEarly(
  userManager: UserManager,
  apiBaseUrl: string,
  remotesUrl: string,
): EarlyRemotes {
  let markSent = () => {};
  const sent = new Promise<void>((resolve) => (markSent = resolve));
  const remotes = (async () => {
    if (hasAuthParams()) return undefined;
    const user = await userManager.getUser();
    if (!user || (user.expires_in ?? 0) < MIN_TOKEN_SECONDS) return undefined;
    const api = createApiClient({
      baseUrl: apiBaseUrl,
      ...createApiAuthorization(userManager),
      renewAuthorization: () => Promise.reject(new Error('not renewed early')),
      fetch: (...args) => {
        const response = fetch(...args);
        markSent();
        return response;
      },
    });
    const listed = await getRemotes(api, remotesUrl);
    // A session that ended (or changed) while the list was on its way gets nothing from it.
    if ((await userManager.getUser())?.access_token !== user.access_token) return undefined;
    return listed;
  })()
    .catch(() => undefined)
    .finally(markSent);
  return { remotes, sent };
}
