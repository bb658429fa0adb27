import { describe, expect, it } from 'vitest';
import { ACCOUNT_ACTIONS, isAccountAction } from './account-actions';

describe('isAccountAction', () => {
  it('knows the named actions and the removal of one credential', () => {
    for (const action of ACCOUNT_ACTIONS) expect(isAccountAction(action)).toBe(true);
    for (const credentialType of ['otp', 'webauthn-passwordless', 'webauthn'])
      expect(
        isAccountAction({
          name: 'delete_credential',
          credentialId: '0b4c2a9e-5d0f-4c43-9a4f-3f3c1b8f7e21',
          credentialType,
        }),
      ).toBe(true);
  });

  it('refuses every other action, a password removal and an id that could carry more', () => {
    for (const value of [
      'DELETE_ACCOUNT',
      'delete_account:someone-else',
      'delete_credential',
      'update_password',
      null,
      42,
      { name: 'delete_credential', credentialId: 'x', credentialType: 'password' },
      { name: 'delete_credential', credentialId: 'x:y', credentialType: 'otp' },
      { name: 'delete_credential', credentialId: 'x y', credentialType: 'otp' },
      { name: 'delete_credential', credentialId: 'x'.repeat(65), credentialType: 'otp' },
      { name: 'delete_credential', credentialId: 7, credentialType: 'otp' },
      { name: 'UPDATE_PASSWORD', credentialId: 'x', credentialType: 'otp' },
    ])
      expect(isAccountAction(value), JSON.stringify(value)).toBe(false);
  });
});
