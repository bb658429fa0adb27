import { describe, expect, it } from 'vitest';
import { ConfigError, parseRuntimeConfig } from './runtime-config';

const valid = {
  oidc: { authority: 'http://localhost:8080/realms/atrium/', clientId: 'atrium-shell' },
  apiBaseUrl: 'http://localhost:3000',
  remotesUrl: '/remotes.json',
};

describe('parseRuntimeConfig', () => {
  it('fills in the default callback and post-logout paths and trims trailing slashes', () => {
    expect(parseRuntimeConfig(valid)).toEqual({
      oidc: {
        authority: 'http://localhost:8080/realms/atrium',
        clientId: 'atrium-shell',
        redirectPath: '/auth/callback',
        postLogoutPath: '/',
      },
      apiBaseUrl: 'http://localhost:3000',
      remotesUrl: '/remotes.json',
    });
  });

  it('names every invalid field at once', () => {
    const error = (() => {
      try {
        parseRuntimeConfig({ oidc: { authority: 'not a url', redirectPath: '//evil.test' }, apiBaseUrl: '' });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'oidc.authority must be an absolute http(s) URL',
      'oidc.clientId must be a non-empty string',
      'oidc.redirectPath must be a path starting with a single /',
      'apiBaseUrl must be a non-empty string',
      'remotesUrl must be a non-empty string',
    ]);
  });
});
