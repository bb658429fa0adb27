import { describe, expect, it } from 'vitest';
import { ConfigError, parseRuntimeConfig } from './runtime-config';

const valid = {
  oidc: { authority: 'http://localhost:8080/realms/atrium/', clientId: 'atrium-shell' },
  apiBaseUrl: 'http://localhost:3000/',
};

function problemsOf(raw: unknown): readonly string[] | undefined {
  try {
    parseRuntimeConfig(raw);
  } catch (caught) {
    expect(caught).toBeInstanceOf(ConfigError);
    return (caught as ConfigError).problems;
  }
  return undefined;
}

describe('parseRuntimeConfig', () => {
  it('fills in the callback paths, the registry URL and the remote timeout, and trims trailing slashes', () => {
    expect(parseRuntimeConfig(valid)).toEqual({
      oidc: {
        authority: 'http://localhost:8080/realms/atrium',
        clientId: 'atrium-shell',
        redirectPath: '/auth/callback',
        postLogoutPath: '/',
      },
      apiBaseUrl: 'http://localhost:3000',
      remotesUrl: 'http://localhost:3000/api/remotes',
      remoteTimeoutMs: 10_000,
      devOverrides: undefined,
      tracing: undefined,
    });
  });

  it('takes an explicit registry URL and remote timeout', () => {
    expect(
      parseRuntimeConfig({ ...valid, remotesUrl: 'http://localhost:3000/v2/remotes', remoteTimeoutMs: 2500 }),
    ).toMatchObject({ remotesUrl: 'http://localhost:3000/v2/remotes', remoteTimeoutMs: 2500 });
  });

  it('refuses a registry URL off the API origin, where the API client would not send the token', () => {
    expect(problemsOf({ ...valid, remotesUrl: 'https://registry.example/api/remotes' })).toEqual([
      'remotesUrl must be on the origin of apiBaseUrl',
    ]);
  });

  it('names every invalid field at once', () => {
    expect(
      problemsOf({
        oidc: { authority: 'not a url', redirectPath: '//evil.test' },
        apiBaseUrl: '',
        remotesUrl: '/remotes.json',
        remoteTimeoutMs: -1,
      }),
    ).toEqual([
      'oidc.authority must be an absolute http(s) URL',
      'oidc.clientId must be a non-empty string',
      'oidc.redirectPath must be a path starting with a single /',
      'apiBaseUrl must be a non-empty string',
      'remotesUrl must be an absolute http(s) URL',
      'remoteTimeoutMs must be a positive whole number of milliseconds',
    ]);
  });
});
