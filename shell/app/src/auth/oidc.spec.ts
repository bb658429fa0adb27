import { User } from 'oidc-client-ts';
import { describe, expect, it } from 'vitest';
import { safeReturnTo, toAtriumUser } from './oidc';

describe('safeReturnTo', () => {
  it('returns the path the person asked for', () => {
    expect(safeReturnTo({ returnTo: '/profile?tab=theme#top' }, '/auth/callback')).toBe(
      '/profile?tab=theme#top',
    );
  });

  it.each([
    ['another origin', { returnTo: 'https://evil.test/' }],
    ['a protocol-relative URL', { returnTo: '//evil.test/' }],
    ['the callback itself', { returnTo: '/auth/callback?code=x' }],
    ['no state', undefined],
  ])('falls back to / for %s', (_label, state) => {
    expect(safeReturnTo(state, '/auth/callback')).toBe('/');
  });
});

describe('toAtriumUser', () => {
  const payload = btoa(JSON.stringify({ realm_access: { roles: ['atrium-user', 'admin'] } }))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

  it('maps ID token claims and takes realm roles from the access token', () => {
    const user = new User({
      access_token: `header.${payload}.signature`,
      token_type: 'Bearer',
      profile: {
        sub: 'f3c1',
        iss: 'http://localhost:8080/realms/atrium',
        aud: 'atrium-shell',
        exp: 0,
        iat: 0,
        preferred_username: 'alice',
        name: 'Alice Liddell',
        email: 'alice@example.com',
      },
    });
    expect(toAtriumUser(user)).toEqual({
      sub: 'f3c1',
      username: 'alice',
      name: 'Alice Liddell',
      email: 'alice@example.com',
      roles: ['atrium-user', 'admin'],
    });
  });
});
