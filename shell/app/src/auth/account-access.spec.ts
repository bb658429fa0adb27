import type { ApiClient } from '@atrium/sdk';
import { describe, expect, it, vi } from 'vitest';
import { ACCOUNT_ACCESS_PATH, hasSigninAnswer, isAccountAccessAnswer } from './account-access-callback';
import { completeAccountAccess, requestAccountAccess } from './account-access';

function memoryStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    clear: () => items.clear(),
    getItem: (key) => items.get(key) ?? null,
    key: (index) => [...items.keys()][index] ?? null,
    removeItem: (key) => void items.delete(key),
    setItem: (key, value) => void items.set(key, value),
  };
}

const ENDPOINT = 'http://localhost:8080/realms/atrium/protocol/openid-connect/auth';

/** An API client whose post answers `answer` and records what was sent. */
function apiAnswering(answer: (path: string, body: unknown) => Promise<unknown>) {
  const post = vi.fn(answer);
  return { api: { post } as unknown as ApiClient, post };
}

describe('account access', () => {
  it("carries the API's authorization request to Keycloak and remembers where to come back", async () => {
    const { api, post } = apiAnswering(() =>
      Promise.resolve({ authorizationUrl: `${ENDPOINT}?client_id=atrium-account-admin&state=sealed` }),
    );
    const assign = vi.fn();
    const storage = memoryStorage();
    await requestAccountAccess({
      api,
      authorizationEndpoint: ENDPOINT,
      returnTo: '/profile',
      location: { origin: 'http://localhost:4000', assign },
      storage,
    });
    expect(post).toHaveBeenCalledWith('/api/account/access-request', {
      redirectUri: 'http://localhost:4000/auth/account-access',
    });
    expect(assign).toHaveBeenCalledWith(`${ENDPOINT}?client_id=atrium-account-admin&state=sealed`);
    expect(await completeAccountAccess(apiAnswering(() => Promise.resolve()).api, '', storage)).toBe(
      '/profile',
    );
  });

  it("goes nowhere but the identity provider's authorization endpoint, whatever the API answers", async () => {
    const assign = vi.fn();
    for (const authorizationUrl of [
      'https://evil.test/realms/atrium/protocol/openid-connect/auth?x=1',
      'http://localhost:8080/realms/other/protocol/openid-connect/auth',
      'javascript:alert(1)',
    ]) {
      const { api } = apiAnswering(() => Promise.resolve({ authorizationUrl }));
      await expect(
        requestAccountAccess({
          api,
          authorizationEndpoint: ENDPOINT,
          returnTo: '/profile',
          location: { origin: 'http://localhost:4000', assign },
          storage: memoryStorage(),
        }),
      ).rejects.toThrow(/authorization endpoint/);
    }
    expect(assign).not.toHaveBeenCalled();
  });

  it("hands Keycloak's answer to the API and goes back, also when it is refused, only to an in-app path", async () => {
    const storage = memoryStorage();
    storage.setItem('atrium.accountAccessReturnTo', '/profile?tab=security');
    const { api, post } = apiAnswering(() => Promise.resolve());
    expect(await completeAccountAccess(api, '?state=s1&session_state=x&code=c1', storage)).toBe(
      '/profile?tab=security',
    );
    expect(post).toHaveBeenCalledWith('/api/account/access', { code: 'c1', state: 's1' });

    storage.setItem('atrium.accountAccessReturnTo', '//evil.test');
    const refusing = apiAnswering(() => Promise.reject(new Error('account_access_required')));
    expect(await completeAccountAccess(refusing.api, '?code=c2&state=s2', storage)).toBe('/');
    // An error from Keycloak (no code) is not sent on.
    const silent = apiAnswering(() => Promise.resolve());
    await completeAccountAccess(silent.api, '?error=login_required&state=s3', storage);
    expect(silent.post).not.toHaveBeenCalled();
  });

  it("leaves Keycloak's answer to the API's request to the API, and the shell's own sign-in answer to the shell", () => {
    const at = (href: string) => new URL(href) as unknown as Location;
    const access = at(`http://localhost:4000${ACCOUNT_ACCESS_PATH}?code=c&state=s`);
    expect(isAccountAccessAnswer(access)).toBe(true);
    expect(hasSigninAnswer(access)).toBe(false);
    const signin = at('http://localhost:4000/auth/callback?code=c&state=s');
    expect(isAccountAccessAnswer(signin)).toBe(false);
    expect(hasSigninAnswer(signin)).toBe(true);
    expect(hasSigninAnswer(at('http://localhost:4000/profile'))).toBe(false);
  });
});
