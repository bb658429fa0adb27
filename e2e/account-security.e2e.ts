import type { Page } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import pg from 'pg';
import {
  allowAccountAccess,
  expectAtriumTheme,
  LOGIN_PAGE,
  signInAtKeycloak,
} from '@atrium/test-support/journeys';
import { realmAdmin, type TestPerson } from '@atrium/test-support/keycloak';
import { API_URL, SHELL_URL } from '@atrium/test-support/addresses';
import { expectAccessible } from '@atrium/test-support/accessibility';

/** One SELECT on the API's database (the stack's PostgreSQL), returning its rows. */
async function query<T extends object>(sql: string, values: unknown[] = []): Promise<T[]> {
  const url = process.env.ATRIUM_E2E_DATABASE_URL;
  if (!url)
    throw new Error('ATRIUM_E2E_DATABASE_URL is not set: run the journeys through e2e/global-setup.ts.');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Signs in at /profile, and lets the API act for the person at Keycloak so the Security section's lists show. */
async function openProfile(page: Page, person: TestPerson): Promise<void> {
  await page.goto('/profile');
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  await expect(page.getByTestId('security-section')).toBeVisible();
  await allowAccountAccess(page);
  await expectAccessible(page, 'profile-and-security');
}

test("changing the password from the Security section runs Keycloak's screen and comes back with the outcome", async ({
  page,
}) => {
  const admin = realmAdmin();
  const person = await admin.createPerson({ prefix: 'lin' });
  await openProfile(page, person);

  // Cancelled on Keycloak's screen: back on the profile, told that nothing changed.
  await page.getByTestId('security-change-password').click();
  await expect(page.getByRole('heading', { name: 'Update password' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-update-password-cancellable');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  await expect(page.getByTestId('security-action-result')).toHaveAttribute('data-status', 'cancelled');
  await expectAccessible(page, 'profile-and-security-action-cancelled');

  await page.getByTestId('security-change-password').click();
  await expect(page.getByRole('heading', { name: 'Update password' })).toBeVisible();
  const newPassword = `Turing${person.password.slice(8)}1912`;
  await page.getByLabel('New Password', { exact: true }).fill(newPassword);
  await page.getByLabel('Confirm password', { exact: true }).fill(newPassword);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  const result = page.getByTestId('security-action-result');
  await expect(result).toHaveAttribute('data-status', 'success');
  await expect(result).toContainText('Your password was changed.');
  await expectAccessible(page, 'profile-and-security-password-changed');
  // Shown once: a reload no longer repeats it.
  await page.reload();
  await expect(page.getByTestId('security-section')).toBeVisible();
  await expect(result).toHaveCount(0);

  // Keycloak's event of the change reaches the audit log administrators read.
  await expect
    .poll(
      async () =>
        (
          await query(
            `select 1 from audit_event where target = $1 and action in ('keycloak.update_password', 'keycloak.update_credential')`,
            [`user:${person.id}`],
          )
        ).length,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
});

test('two browsers: ending the other session from the Security section signs that browser out', async ({
  browser,
}) => {
  // The other browser notices when its next renewal is refused (access tokens live 60 s in the test stack).
  test.setTimeout(180_000);
  const admin = realmAdmin();
  const person = await admin.createPerson({ prefix: 'lin' });
  const here = await browser.newContext();
  const elsewhere = await browser.newContext();
  try {
    const page = await here.newPage();
    const other = await elsewhere.newPage();
    await openProfile(page, person);
    await openProfile(other, person);
    await page.reload();

    const sessions = page.getByTestId('security-session');
    await expect(sessions).toHaveCount(2);
    await expect(sessions.and(page.locator('[data-current="true"]'))).toHaveCount(1);
    await page.getByTestId('security-sign-out-others').click();
    await expect(page.getByTestId('security-signed-out')).toHaveText('Signed out 1 other session.');
    await expect(sessions).toHaveCount(1);
    await expectAccessible(page, 'profile-and-security-others-signed-out');
    expect(await admin.sessionCount(person)).toBe(1);

    // The other browser's session is over: its next renewal is refused and the shell sends it to sign-in.
    await expect(other).toHaveURL(LOGIN_PAGE, { timeout: 120_000 });
    await expect(other.getByLabel('Password', { exact: true })).toBeVisible();
    // Here the person carries on.
    await page.reload();
    await expect(sessions).toHaveCount(1);
    await expect(page.getByTestId('profile-username')).toHaveText(person.username);
  } finally {
    await here.close();
    await elsewhere.close();
  }
});

test('a script in the signed-in page cannot delete the account: Keycloak wants the password again first', async ({
  page,
}) => {
  const admin = realmAdmin();
  const person = await admin.createPerson({ prefix: 'lin' });
  await openProfile(page, person);
  // A second passes: Keycloak counts the sign-in's age in whole seconds.
  await page.waitForTimeout(1_100);

  // What a remote's code can do: send the signed-in person's browser to Keycloak's Delete Account, as the shell's
  // account action does (an authorization request of the shell's client with kc_action=delete_account).
  await page.evaluate(async () => {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const verifier = btoa(String.fromCharCode(...bytes)).replace(/[+/=]/g, '');
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    const challenge = btoa(String.fromCharCode(...digest))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    const url = new URL('http://localhost:8080/realms/atrium/protocol/openid-connect/auth');
    url.search = new URLSearchParams({
      client_id: 'atrium-shell',
      redirect_uri: 'http://localhost:4000/auth/callback',
      response_type: 'code',
      scope: 'openid',
      state: 'forged',
      kc_action: 'delete_account',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }).toString();
    window.location.assign(url.toString());
  });
  // However live the session, Keycloak asks for the password before it even shows the deletion.
  await expect(page.getByText('Please re-authenticate to continue')).toBeVisible();
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-re-authenticate');
  await expect(page.getByRole('button', { name: 'Confirm deletion' })).toHaveCount(0);
  expect(await admin.status(`/users/${person.id}`)).toBe(200);

  // The person carries on where they were, with everything they had.
  await page.goto('/profile');
  await expect(page.getByTestId('profile-username')).toHaveText(person.username);
  await expect(page.getByTestId('security-credentials')).toBeVisible();
  expect(await query('select id from user_profile where id = $1', [person.id])).toHaveLength(1);
});

test('deleting the account: the username typed, the password again and a confirmation at Keycloak; then it is gone from Keycloak and the API, and its token brings nothing back', async ({
  page,
}) => {
  const admin = realmAdmin();
  const person = await admin.createPerson({ prefix: 'lin' });
  await openProfile(page, person);
  await expect(page.getByTestId('profile-username')).toHaveText(person.username);
  expect(await query('select id from user_profile where id = $1', [person.id])).toHaveLength(1);
  // Security activity shows the sign-in that just happened.
  await expect(page.getByTestId('security-activity').locator('[data-type="LOGIN"]').first()).toBeVisible();
  await page.waitForTimeout(1_100);

  const button = page.getByTestId('security-delete-account');
  await page.getByTestId('security-delete-confirmation').fill(person.username.toUpperCase());
  await expect(button).toBeDisabled();
  await page.getByTestId('security-delete-confirmation').fill(person.username);
  await button.click();

  // Keycloak: the password again, then its own confirmation.
  await expect(page.getByText('Please re-authenticate to continue')).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill(person.password);
  await page.getByRole('button', { name: /sign in/i }).click();
  await expect(page.getByRole('button', { name: 'Confirm deletion' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-delete-account');
  await page.getByRole('button', { name: 'Confirm deletion' }).click();
  await expect(page.getByText('Your Atrium account has been deleted.')).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-account-deleted');
  expect(await admin.status(`/users/${person.id}`)).toBe(404);

  // The API erases what it kept once Keycloak reports the deletion (it polls every 5 s in the test stack).
  await expect
    .poll(async () => (await query('select id from user_profile where id = $1', [person.id])).length, {
      timeout: 30_000,
    })
    .toBe(0);

  // Back in the shell, the page still holds the person's access token, valid for a while: it calls /api/me as it
  // boots and is refused; nothing about the person is written again, and the shell sends the browser to sign in.
  // The refusal is read as it passes through (route.fetch sends the page's own request, proof included): the
  // shell leaves for the sign-in page at once, and Chromium drops the body of a response the page navigated away
  // from, so reading it after the fact races that navigation.
  const refused = new Promise<{ status: number; code: string }>((resolve) => {
    void page.route(`${API_URL}/api/me`, async (route) => {
      if (route.request().method() !== 'GET') return route.fallback();
      const response = await route.fetch();
      const body = (await response.json()) as { code: string };
      resolve({ status: response.status(), code: body.code });
      await route.fulfill({ response });
    });
  });
  await page.goto('/profile');
  expect(await refused).toEqual({ status: 401, code: 'account_deleted' });
  await expect(page).toHaveURL(LOGIN_PAGE, { timeout: 90_000 });
  expect(await query('select id from user_profile where id = $1', [person.id])).toHaveLength(0);

  // The audit log keeps the deletion without the person's id or name, also Keycloak's own event about it.
  await expect
    .poll(
      async () =>
        (
          await query(
            `select 1 from audit_event where action = 'keycloak.delete_account' and target like 'user:anonymous-%'
             and occurred_at > now() - interval '5 minutes'`,
          )
        ).length,
      { timeout: 30_000 },
    )
    .toBeGreaterThan(0);
  const deleted = await query<{ actor: string }>(
    `select actor from audit_event where action = 'account.deleted' order by id desc limit 1`,
  );
  expect(deleted[0]?.actor).toMatch(/^anonymous-[0-9a-f]{16}$/);
  const mentions = await query(
    `select id from audit_event where actor in ($1, $2) or target like $3 or details::text like $3 or details::text like $4`,
    [person.id, person.username, `%${person.id}%`, `%${person.username}%`],
  );
  expect(mentions).toHaveLength(0);
});
