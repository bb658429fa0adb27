import { expect, test, type Page } from '@playwright/test';
import pg from 'pg';
import { signInAtKeycloak } from './support/keycloak.ts';
import { realmAdmin, type RealmPerson } from './support/realm-admin.ts';

const SHELL = 'http://localhost:4000';
const LOGIN_PAGE = /\/realms\/atrium\/protocol\/openid-connect\/auth/;

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

async function openProfile(page: Page, person: RealmPerson): Promise<void> {
  await page.goto('/profile');
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page).toHaveURL(`${SHELL}/profile`);
  await expect(page.getByTestId('security-section')).toBeVisible();
}

test("changing the password from the Security section runs Keycloak's screen and comes back with the outcome", async ({
  page,
  request,
}) => {
  const admin = await realmAdmin(request);
  const person = await admin.createPerson();
  await openProfile(page, person);

  // Cancelled on Keycloak's screen: back on the profile, told that nothing changed.
  await page.getByTestId('security-change-password').click();
  await expect(page.getByRole('heading', { name: 'Update password' })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(`${SHELL}/profile`);
  await expect(page.getByTestId('security-action-result')).toHaveAttribute('data-status', 'cancelled');

  await page.getByTestId('security-change-password').click();
  await expect(page.getByRole('heading', { name: 'Update password' })).toBeVisible();
  const newPassword = `Turing${person.password.slice(8)}1912`;
  await page.getByLabel('New Password', { exact: true }).fill(newPassword);
  await page.getByLabel('Confirm password', { exact: true }).fill(newPassword);
  await page.getByRole('button', { name: 'Submit' }).click();
  await expect(page).toHaveURL(`${SHELL}/profile`);
  const result = page.getByTestId('security-action-result');
  await expect(result).toHaveAttribute('data-status', 'success');
  await expect(result).toContainText('Your password was changed.');
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
  request,
}) => {
  // The other browser notices when its next renewal is refused (access tokens live 60 s in the test stack).
  test.setTimeout(180_000);
  const admin = await realmAdmin(request);
  const person = await admin.createPerson();
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
    expect(await admin.sessionCount(person.id)).toBe(1);

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

test('deleting the account after typing the username removes it from Keycloak and the API, leaving an anonymous audit record', async ({
  page,
  request,
}) => {
  const admin = await realmAdmin(request);
  const person = await admin.createPerson();
  await openProfile(page, person);
  await expect(page.getByTestId('profile-username')).toHaveText(person.username);
  expect(await query('select id from user_profile where id = $1', [person.id])).toHaveLength(1);
  // Security activity shows the sign-in that just happened.
  await expect(page.getByTestId('security-activity').locator('[data-type="LOGIN"]').first()).toBeVisible();

  const button = page.getByTestId('security-delete-account');
  await page.getByTestId('security-delete-confirmation').fill(person.username.toUpperCase());
  await expect(button).toBeDisabled();
  await page.getByTestId('security-delete-confirmation').fill(person.username);
  await button.click();

  // Signed out: the shell leaves for Keycloak, and the account is gone there and in the API.
  await expect(page).not.toHaveURL(`${SHELL}/profile`);
  await expect.poll(() => admin.userStatus(person.id)).toBe(404);
  expect(await query('select id from user_profile where id = $1', [person.id])).toHaveLength(0);

  // The audit log keeps the deletion without the person's id or name, also once Keycloak's own events about
  // it (the deletion, as an admin event) have been copied in.
  await expect
    .poll(
      async () =>
        (
          await query(
            `select 1 from audit_event where action = 'keycloak.admin.delete_user' and target like 'user:anonymous-%'
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
