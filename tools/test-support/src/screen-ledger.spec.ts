import { describe, expect, it } from 'vitest';
import { ISSUER, SHELL_URL } from './addresses.ts';
import { screenOf, uncheckedScreens } from './screen-ledger.ts';

const SIGN_IN = `${ISSUER}/protocol/openid-connect/auth`;

describe('screenOf', () => {
  it("names the shell's pages and the realm's pages at Keycloak by origin and path", () => {
    expect(screenOf(`${SHELL_URL}/admin/audit?remote=profile#top`)).toBe(`${SHELL_URL}/admin/audit`);
    expect(screenOf(`${SIGN_IN}?client_id=atrium-shell&state=x`)).toBe(SIGN_IN);
    expect(screenOf(`${ISSUER}/login-actions/required-action?execution=UPDATE_PASSWORD`)).toBe(
      `${ISSUER}/login-actions/required-action`,
    );
  });

  it("is no screen: the shell's hand-offs of a sign-in answer, other origins, blank pages", () => {
    expect(screenOf(`${SHELL_URL}/auth/callback?code=c&state=s`)).toBeNull();
    expect(screenOf(`${SHELL_URL}/auth/account-access?code=c`)).toBeNull();
    expect(screenOf('http://localhost:3000/api/me')).toBeNull();
    expect(screenOf('http://localhost:8080/realms/master/account')).toBeNull();
    expect(screenOf('about:blank')).toBeNull();
  });
});

describe('uncheckedScreens', () => {
  it('lists each screen shown and never checked once, in the order shown', () => {
    const visits = [`${SHELL_URL}/admin`, `${SHELL_URL}/admin/audit`, `${SHELL_URL}/admin`];
    expect(uncheckedScreens({ visits, checked: new Set() })).toEqual([
      `${SHELL_URL}/admin`,
      `${SHELL_URL}/admin/audit`,
    ]);
    expect(uncheckedScreens({ visits, checked: new Set([`${SHELL_URL}/admin`]) })).toEqual([
      `${SHELL_URL}/admin/audit`,
    ]);
  });

  it('counts a shell page the browser left straight for the sign-in page as gone through', () => {
    const visits = [`${SHELL_URL}/profile`, SIGN_IN, `${SHELL_URL}/profile`, `${SHELL_URL}/`, SIGN_IN];
    // The sign-in page and the signed-in profile were shown; the signed-out pages only passed the browser on.
    expect(uncheckedScreens({ visits, checked: new Set() })).toEqual([SIGN_IN, `${SHELL_URL}/profile`]);
    expect(uncheckedScreens({ visits, checked: new Set([SIGN_IN, `${SHELL_URL}/profile`]) })).toEqual([]);
  });
});
