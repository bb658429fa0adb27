import { describe, expect, it } from 'vitest';
import { formAction, pageOf } from './browser.ts';

// Trimmed from the pages Keycloak 26.7 renders (keycloak.v2 login theme).
const loginPage =
  '<form id="kc-form-login" class="pf-v5-c-form" onsubmit="login.disabled = true; return true;" ' +
  'action="http://localhost:8080/realms/atrium/login-actions/authenticate?session_code=abc&amp;execution=e1&amp;client_id=atrium-shell&amp;tab_id=t1" ' +
  'method="post" novalidate="novalidate">';
const updateProfilePage =
  '<form id="kc-update-profile-form" class="pf-v5-c-form" action="http://localhost:8080/realms/atrium/login-actions/required-action?x=1" method="post">';
const deleteCredentialPage =
  '<div id="kc-delete-text" class="pf-v5-c-content">Do you want to delete Phone?</div>' +
  '<form class="pf-v5-c-form" action="http://localhost:8080/realms/atrium/login-actions/required-action?execution=delete_credential&amp;tab_id=t1" method="POST">';
const updatePasswordPage = '<form id="kc-passwd-update-form" class="pf-v5-c-form" action="/x" method="post">';
const deleteAccountPage =
  '<form action="http://localhost:8080/realms/atrium/login-actions/required-action?execution=delete_account&amp;tab_id=t1" class="pf-v5-c-form" id="kc-deleteaccount-form" method="post">';
const infoPage = '<div id="kc-info-message"><p class="instruction">User deleted successfully</p></div>';

describe('reading Keycloak pages', () => {
  it('takes the login form action with HTML entities decoded', () => {
    expect(formAction(loginPage)).toBe(
      'http://localhost:8080/realms/atrium/login-actions/authenticate?session_code=abc&execution=e1&client_id=atrium-shell&tab_id=t1',
    );
    expect(formAction('<p>We are sorry...</p>')).toBeUndefined();
  });

  it('names the page so a test can tell a rejected password from a required action', () => {
    expect(pageOf(loginPage)).toBe('login');
    expect(pageOf(updateProfilePage)).toBe('update-profile');
    expect(pageOf(updatePasswordPage)).toBe('passwd-update');
    expect(pageOf(deleteCredentialPage)).toBe('delete-credential');
    expect(formAction(deleteCredentialPage)).toBe(
      'http://localhost:8080/realms/atrium/login-actions/required-action?execution=delete_credential&tab_id=t1',
    );
    expect(pageOf(deleteAccountPage)).toBe('deleteaccount');
    expect(formAction(deleteAccountPage)).toBe(
      'http://localhost:8080/realms/atrium/login-actions/required-action?execution=delete_account&tab_id=t1',
    );
    expect(pageOf(infoPage)).toBe('info');
    expect(formAction(infoPage)).toBeUndefined();
    expect(pageOf('<html><body>error</body></html>')).toBe('unknown');
  });
});
