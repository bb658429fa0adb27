import { randomBytes } from 'node:crypto';
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import {
  choosePassword,
  expectAtriumMail,
  expectAtriumTheme,
  inbox,
  LOGIN_PAGE,
  signOut,
  newPerson,
  type Person,
  register,
  signInAtKeycloak,
  verifyFromInbox,
} from '@atrium/test-support/journeys';
import { realmAdmin, realmAdminHeaders } from '@atrium/test-support/keycloak';
import { linkIn, waitForMail } from '@atrium/test-support/mail';
import { ISSUER, KEYCLOAK_URL, SHELL_URL } from '@atrium/test-support/addresses';
import { expectAccessible } from '@atrium/test-support/accessibility';

/** Keycloak's event log for the person and its settings, read as the realm's administrator would. */
async function recordedEvents(
  request: APIRequestContext,
  person: Person,
): Promise<{ types: string[]; config: Record<string, unknown> }> {
  const headers = await realmAdminHeaders();
  const users = (await (
    await request.get(`${KEYCLOAK_URL}/admin/realms/atrium/users?username=${person.username}&exact=true`, {
      headers,
    })
  ).json()) as { id: string }[];
  expect(users).toHaveLength(1);
  const events = await request.get(
    `${KEYCLOAK_URL}/admin/realms/atrium/events?user=${users[0]!.id}&max=100`,
    {
      headers,
    },
  );
  expect(events.ok()).toBe(true);
  const config = await request.get(`${KEYCLOAK_URL}/admin/realms/atrium/events/config`, { headers });
  expect(config.ok()).toBe(true);
  return {
    types: ((await events.json()) as { type: string }[]).map((event) => event.type),
    config: (await config.json()) as Record<string, unknown>,
  };
}

test('a new person registers from the sign-in page, verifies the e-mail from the inbox and lands signed in as an atrium-user', async ({
  page,
}) => {
  const person = newPerson();
  await register(page, person);
  await verifyFromInbox(page, person);

  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  // The API created the profile on its first call, from the new account's access token.
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
  await expect(page.getByTestId('signed-in-user')).toHaveText(`${person.firstName} ${person.lastName}`);
  // The default roles gave atrium-user, and nothing more: Profile is there, Admin is not.
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Profile' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Admin' })).toHaveCount(0);
  await expectAccessible(page, 'profile-new-person');
});

test('a person who forgot their password sets a new one from the reset mail; the old one is refused, the new one works', async ({
  page,
  request,
}) => {
  const person = newPerson();
  await register(page, person);
  await verifyFromInbox(page, person);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
  await expectAccessible(page, 'profile');
  await signOut(page);

  // Signed out, the person asks for a reset from the sign-in page, naming their e-mail address.
  await page.goto('/profile');
  await expect(page).toHaveURL(LOGIN_PAGE);
  await page.getByRole('link', { name: 'Forgot Password?' }).click();
  await expect(page.getByRole('heading', { name: /forgot your password/i })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-forgot-password');
  await page.getByLabel('Username or email', { exact: true }).fill(person.email);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(
    page.getByText('You should receive an email shortly with further instructions.'),
  ).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-reset-mail-sent');

  const resetMail = await waitForMail(inbox(), person.email, { subject: /^Reset password$/ });
  expectAtriumMail(resetMail);
  const resetLink = linkIn(resetMail, `${ISSUER}/`);
  const newPassword = `Ada${randomBytes(9).toString('hex')}1843`;
  await page.goto(resetLink);
  await choosePassword(page, newPassword);
  // The reset completes the sign-in the person started: they are back where they were going.
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
  await signOut(page);

  // Someone holding the old mail cannot use its link a second time to set a password of their own.
  // Keycloak spent the link on its first use: it answers "Action expired", never the password form.
  await page.goto(resetLink);
  await expect(page.getByText(/^Action expired\. Please continue with login now\.$/)).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-action-expired');
  await expect(page.getByLabel('New Password', { exact: true })).toHaveCount(0);

  // The old password is refused.
  await page.goto('/profile');
  await signInAtKeycloak(page, person.email, person.password);
  await expect(page.getByText('Invalid username or password.')).toBeVisible();
  await expect(page).toHaveURL(/\/realms\/atrium\//);
  await expectAtriumTheme(page, 'keycloak-sign-in-refused');

  // The new one works.
  await page.getByLabel('Password', { exact: true }).fill(newPassword);
  await page.getByRole('button', { name: /sign in/i }).click();
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);

  // Keycloak kept the whole story for the realm's administrators, the refused attempt included.
  const { types, config } = await recordedEvents(request, person);
  expect(types).toEqual(
    expect.arrayContaining(['REGISTER', 'VERIFY_EMAIL', 'SEND_RESET_PASSWORD', 'LOGIN_ERROR', 'LOGIN']),
  );
  // Kept for 90 days, administrators' changes too.
  expect(config).toMatchObject({
    eventsEnabled: true,
    eventsExpiration: 7_776_000,
    adminEventsEnabled: true,
  });
});

test("Keycloak's pages outside the sign-in flow are Atrium's and accessible: the logout confirmation, its outcome and an error page", async ({
  page,
}) => {
  const person = await realmAdmin().createPerson({ prefix: 'lena' });
  await page.goto('/profile');
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
  await expectAccessible(page, 'profile');

  // Keycloak's own logout, opened without the shell (a bookmark, another application's link): it asks first.
  await page.goto(`${ISSUER}/protocol/openid-connect/logout`);
  await expect(page.getByRole('heading', { name: 'Logging out' })).toBeVisible();
  await expect(page.getByText('Do you want to log out?')).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-logout-confirmation');
  await page.getByRole('button', { name: 'Logout' }).click();
  await expect(page.getByRole('heading', { name: 'You are logged out' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-logged-out');

  // A sign-in request Keycloak refuses (an address the shell's client does not allow): its error page.
  const refused = new URL(`${ISSUER}/protocol/openid-connect/auth`);
  refused.search = new URLSearchParams({
    client_id: 'atrium-shell',
    redirect_uri: 'http://evil.localhost:4000/auth/callback',
    response_type: 'code',
    scope: 'openid',
  }).toString();
  await page.goto(refused.toString());
  await expect(page.getByRole('heading', { name: 'We are sorry...' })).toBeVisible();
  await expect(page.getByText('Invalid parameter: redirect_uri')).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-error');
});
