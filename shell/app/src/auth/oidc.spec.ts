import { User } from 'oidc-client-ts';
import { describe, expect, it } from 'vitest';
import { safeReturnTo, toAtriumUser } from './oidc';

describe('safeReturnTo', () => {
  it('returns the path the person asked for', () => {
    expect(safeReturnTo({ returnTo: '/profile?tab=theme#top' }, '/auth/callback')).toBe(
      '/profile?tab=theme#top',
    );
  });

  it('keeps percent-encoded and non-ASCII characters, which browsers do not reinterpret', () => {
    expect(safeReturnTo({ returnTo: '/search?q=a%5Cb%09c' }, '/auth/callback')).toBe('/search?q=a%5Cb%09c');
    expect(safeReturnTo({ returnTo: '/profile/José' }, '/auth/callback')).toBe('/profile/José');
  });

  it.each([
    ['another origin', { returnTo: 'https://evil.test/' }],
    ['a protocol-relative URL', { returnTo: '//evil.test/' }],
    ['the callback itself', { returnTo: '/auth/callback?code=x' }],
    ['a backslash path that browsers read as protocol-relative', { returnTo: '/\\evil.test' }],
    ['a backslash anywhere in the path', { returnTo: '/profile\\..\\\\evil.test' }],
    ['a tab that browsers drop, leaving //', { returnTo: '/\t/evil.test' }],
    ['a line break', { returnTo: '/profile\r\nSet-Cookie: x=1' }],
    ['a NUL character', { returnTo: '/profile\u0000' }],
    ['DEL', { returnTo: '/profile\u007f' }],
    ['a C1 control character', { returnTo: '/profile\u0085' }],
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
