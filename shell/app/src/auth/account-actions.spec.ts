import type { AccountAction } from '@atrium/sdk';
import { describe, expect, it } from 'vitest';
import { hasAccountActionResult, keepAccountActionResult } from './account-action-callback';
import { accountActionRequest, takeAccountActionResult } from './account-actions';

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

describe('account actions', () => {
  it('asks Keycloak for the action with kc_action and comes back to the same page', () => {
    expect(accountActionRequest('CONFIGURE_TOTP', '/profile?tab=security')).toEqual({
      state: { returnTo: '/profile?tab=security', accountAction: 'CONFIGURE_TOTP' },
      extraQueryParams: { kc_action: 'CONFIGURE_TOTP' },
    });
  });

  it("deletes the account only through Keycloak's own action, kc_action=delete_account", () => {
    expect(accountActionRequest('delete_account', '/profile')).toEqual({
      state: { returnTo: '/profile', accountAction: 'delete_account' },
      extraQueryParams: { kc_action: 'delete_account' },
    });
  });

  it('removes a credential with delete_credential:<id>, and keeps which kind it was for the message', () => {
    const action = {
      name: 'delete_credential',
      credentialId: '4c3e0ad1-8a2b-4f7e-9d8c-0f1e2d3c4b5a',
      credentialType: 'otp',
    } as const;
    expect(accountActionRequest(action, '/profile')).toEqual({
      state: { returnTo: '/profile', accountAction: action },
      extraQueryParams: { kc_action: 'delete_credential:4c3e0ad1-8a2b-4f7e-9d8c-0f1e2d3c4b5a' },
    });
    const storage = memoryStorage();
    keepAccountActionResult(
      { returnTo: '/profile', accountAction: action },
      '?kc_action_status=success',
      storage,
    );
    expect(takeAccountActionResult(storage)).toEqual({ action, status: 'success' });
  });

  it('starts no action a remote made up: another action, a second parameter, the password', () => {
    const forged: unknown[] = [
      'DELETE_ACCOUNT',
      'delete_credential:4c3e0ad1',
      { name: 'delete_account', credentialId: 'a', credentialType: 'otp' },
      { name: 'delete_credential', credentialId: 'a:b', credentialType: 'otp' },
      { name: 'delete_credential', credentialId: 'a&kc_action=delete_account', credentialType: 'otp' },
      { name: 'delete_credential', credentialId: '', credentialType: 'otp' },
      { name: 'delete_credential', credentialId: 'a', credentialType: 'password' },
      { name: 'delete_credential', credentialId: 'a' },
    ];
    for (const action of forged) {
      expect(() => accountActionRequest(action as AccountAction, '/'), JSON.stringify(action)).toThrow(
        /Not an account action/,
      );
      const storage = memoryStorage();
      keepAccountActionResult({ returnTo: '/', accountAction: action }, '?kc_action_status=success', storage);
      expect(takeAccountActionResult(storage), JSON.stringify(action)).toBeNull();
    }
  });

  it("keeps Keycloak's kc_action_status for the page, once", () => {
    const storage = memoryStorage();
    keepAccountActionResult(
      { returnTo: '/profile', accountAction: 'UPDATE_PASSWORD' },
      '?code=x&state=y&kc_action_status=cancelled',
      storage,
    );
    expect(takeAccountActionResult(storage)).toEqual({ action: 'UPDATE_PASSWORD', status: 'cancelled' });
    expect(takeAccountActionResult(storage)).toBeNull();
  });

  it('records nothing for an ordinary sign-in, and an error for an unknown status', () => {
    const storage = memoryStorage();
    keepAccountActionResult({ returnTo: '/' }, '?kc_action_status=success', storage);
    expect(hasAccountActionResult(storage)).toBe(false);
    expect(takeAccountActionResult(storage)).toBeNull();
    keepAccountActionResult(
      { returnTo: '/', accountAction: 'UPDATE_EMAIL' },
      '?kc_action_status=success',
      storage,
    );
    expect(takeAccountActionResult(storage)).toBeNull();
    keepAccountActionResult(
      { returnTo: '/', accountAction: 'webauthn-register-passwordless' },
      '?kc_action_status=<script>',
      storage,
    );
    expect(takeAccountActionResult(storage)).toEqual({
      action: 'webauthn-register-passwordless',
      status: 'error',
    });
  });
});
