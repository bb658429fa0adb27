import type { Page } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import { createHash, randomBytes } from 'node:crypto';
import { generateSync } from 'otplib';
import { KEYCLOAK_URL, SHELL_URL } from '@atrium/test-support/addresses';
import {
  allowAccountAccess,
  expectAtriumTheme,
  signInAtKeycloak,
  signOut,
  signOutToShell,
} from '@atrium/test-support/journeys';
import { realmAdmin, type TestPerson } from '@atrium/test-support/keycloak';
import { expectAccessible } from '@atrium/test-support/accessibility';

/** The atrium realm's admin API: the journeys' people, their credentials and sessions. */
const realm = realmAdmin();
/** What Keycloak says when a passkey it no longer knows is offered. */
const PASSKEY_REFUSED = /Unknown user authenticated by the Passkey/;

/** Opens /profile signed out and signs in with the person's password. */
async function signInWithPassword(page: Page, person: TestPerson): Promise<void> {
  await page.goto('/profile');
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
}

/**
 * Starts a Keycloak application-initiated action (`kc_action`) for the signed-in person, the way the profile's
 * Security section does: an authorization request of the shell's client that asks for the action. The
 * journeys drive the URL themselves; the shell's own round trip is the Security section's (see README).
 */
async function startAccountAction(page: Page, action: string): Promise<void> {
  const verifier = randomBytes(32).toString('base64url');
  const url = new URL(`${KEYCLOAK_URL}/realms/atrium/protocol/openid-connect/auth`);
  url.search = new URLSearchParams({
    client_id: 'atrium-shell',
    redirect_uri: `${SHELL_URL}/auth/callback`,
    response_type: 'code',
    scope: 'openid',
    kc_action: action,
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  await page.goto(url.toString());
}

/** Back from an action, the person returns to the shell, still signed in. */
async function backToShell(page: Page, person: TestPerson): Promise<void> {
  await page.waitForURL((url) => url.origin === SHELL_URL);
  await page.goto('/profile');
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
}

/**
 * Removes the second factor named `label` from the Security section: Keycloak's own page names it and asks to
 * confirm (the delete_credential action), then the person is back with the outcome and the list without it.
 */
async function removeFromSecuritySection(page: Page, label: string, message: string): Promise<void> {
  const row = page.getByTestId('security-credential').filter({ hasText: label });
  await row.getByRole('button', { name: /^Remove/ }).click();
  await expect(page.getByRole('heading', { name: `Delete ${label}` })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-delete-credential');
  await page.getByRole('button', { name: 'Confirm deletion' }).click();
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  await expect(page.getByTestId('security-action-result')).toContainText(message);
  await expect(page.getByTestId('security-credential')).toHaveCount(1);
  await expect(page.getByTestId('security-credential')).toHaveAttribute('data-type', 'password');
  await expect(page.getByTestId('security-no-factors')).toBeVisible();
  await expectAccessible(page, 'profile-and-security-factor-removed');
}

test('a person registers a passkey, signs out, signs in with it and no password, then removes it and it no longer signs in', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const person = await realm.createPerson({ prefix: 'pat' });
  // Chromium's virtual authenticator (DevTools protocol): a platform authenticator that keeps discoverable
  // credentials and verifies the user, answering every WebAuthn request as a person touching it would.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  // Keycloak asks for a label for the new passkey in a prompt.
  page.on('dialog', (dialog) => void dialog.accept('Journey passkey'));

  await signInWithPassword(page, person);
  await startAccountAction(page, 'webauthn-register-passwordless');
  await expect(page.getByRole('heading', { name: 'Passkey Registration' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-passkey-registration');
  await page.getByRole('button', { name: 'Register', exact: true }).click();
  await backToShell(page, person);

  const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(credentials).toHaveLength(1);
  expect(credentials[0]!.isResidentCredential).toBe(true);
  expect(await realm.credentialTypes(person)).toEqual(['password', 'webauthn-passwordless']);

  // Signed out, the shell sends the person straight to Keycloak (the test opens no page of its own, which would
  // race that redirect). No username, no password: the passkey names the person. Keycloak's sign-in page asks
  // the browser for a passkey through autofill (conditional mediation) as it opens, and Chromium's virtual
  // authenticator answers as a person picking the passkey would. Nothing is clicked: pressing "Sign in with
  // Passkey" while autofill answers sends the page's form twice, and Keycloak refuses the second as out of date.
  await signOutToShell(page);
  await expect(page.getByTestId('signed-in-user')).toHaveText(`${person.firstName} ${person.lastName}`);
  await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
  await expectAccessible(page, 'home');
  await page.goto('/profile');
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
  const { credentials: used } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(used[0]!.signCount).toBeGreaterThan(credentials[0]!.signCount);

  // The Security section lists it with its label; removed there, Keycloak no longer knows it.
  await allowAccountAccess(page);
  await expect(page.getByTestId('security-credential').filter({ hasText: 'Journey passkey' })).toContainText(
    'Passkey',
  );
  await expectAccessible(page, 'profile-and-security-passkey');
  await removeFromSecuritySection(page, 'Journey passkey', 'Your passkey was removed.');
  expect(await realm.credentialTypes(person)).toEqual(['password']);

  // The authenticator still holds the key, but Keycloak refuses it: the person stays on the sign-in page. This
  // time the browser offers no autofill (as many do not), so Keycloak shows its "Sign in with Passkey" button and
  // the key is offered once, when it is pressed. (With autofill, each refusal reloads the page, which offers the
  // stale key again.)
  await page.addInitScript((keycloak) => {
    if (location.origin === keycloak)
      Reflect.deleteProperty(PublicKeyCredential, 'isConditionalMediationAvailable');
  }, KEYCLOAK_URL);
  await signOut(page);
  await page.getByRole('link', { name: 'Sign in with Passkey' }).click();
  await expect(page.getByText(PASSKEY_REFUSED)).toBeVisible();
  await expect(page).toHaveURL(/\/realms\/atrium\//);
  await expectAtriumTheme(page, 'keycloak-passkey-refused');
  await expect(page.getByTestId('profile-email')).toHaveCount(0);
  const { credentials: offered } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
  expect(offered[0]!.signCount).toBeGreaterThan(used[0]!.signCount);
  // The password still signs the person in.
  await page.goto('/profile');
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
});

/** The code an authenticator app shows for the secret at `epochSeconds`. */
function codeAt(secret: string, epochSeconds: number): string {
  return generateSync({ secret, algorithm: 'sha1', digits: 6, period: 30, epoch: epochSeconds });
}

/** Waits until the 30 s window changes, so the next code is one Keycloak has not seen used. */
async function nextWindow(page: Page, after: number): Promise<void> {
  const wait = (Math.floor(after / 30) + 1) * 30 - Date.now() / 1000;
  if (wait > 0) await page.waitForTimeout(wait * 1000 + 500);
}

test('a person sets up an authenticator app, signs in with a code (a wrong one is refused), removes the app, and then signs in with the password alone', async ({
  page,
}) => {
  test.setTimeout(150_000);
  const person = await realm.createPerson({ prefix: 'otto' });
  await signInWithPassword(page, person);

  await startAccountAction(page, 'CONFIGURE_TOTP');
  await expect(page.getByRole('heading', { name: 'Mobile Authenticator Setup' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-otp-setup');
  // The key an app would scan from the QR code, as Keycloak spells it out for typing in.
  await page.getByRole('link', { name: 'Unable to scan?' }).click();
  const secret = (await page.locator('#kc-totp-secret-key').innerText()).replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
  await expect(page.getByText('SHA1')).toBeVisible();
  await expectAccessible(page, 'keycloak-otp-setup-key');
  const setupAt = Date.now() / 1000;
  // The fields by their labels (Keycloak's own labels named no input: the theme's copy of the page fixes them).
  await page.getByLabel('One-time code').fill(codeAt(secret, setupAt));
  await page.getByLabel('Device Name').fill('Journey phone');
  await page.getByRole('button', { name: 'Submit' }).click();
  await backToShell(page, person);
  expect(await realm.credentialTypes(person)).toEqual(['otp', 'password']);

  await signOut(page);
  await page.goto('/profile');
  await signInAtKeycloak(page, person.username, person.password);
  const codeField = page.locator('input[name="otp"]');
  await expect(codeField).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-otp-code');

  // A wrong code: refused, and the person stays on the code page.
  await nextWindow(page, setupAt);
  const now = Date.now() / 1000;
  const right = codeAt(secret, now);
  const validNearby = new Set([-30, 0, 30].map((offset) => codeAt(secret, now + offset)));
  let wrong = right;
  for (let n = 1; validNearby.has(wrong); n += 1)
    wrong = String((Number(right) + n) % 1_000_000).padStart(6, '0');
  await codeField.fill(wrong);
  await page.getByRole('button', { name: /sign in/i }).click();
  await expect(page.getByText('Invalid authenticator code.')).toBeVisible();
  await expect(page).toHaveURL(/\/realms\/atrium\//);
  await expectAccessible(page, 'keycloak-otp-code-refused');

  // The right one.
  await codeField.fill(codeAt(secret, Date.now() / 1000));
  await page.getByRole('button', { name: /sign in/i }).click();
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);

  // Removed from the Security section, the app is no longer asked for: the password alone signs in.
  await allowAccountAccess(page);
  await removeFromSecuritySection(page, 'Journey phone', 'Your authenticator app was removed.');
  expect(await realm.credentialTypes(person)).toEqual(['password']);
  await signOut(page);
  await page.goto('/profile');
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
  await expect(page.locator('input[name="otp"]')).toHaveCount(0);
});
