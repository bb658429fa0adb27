import type { Page } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import { LOGIN_PAGE, signInAtKeycloak } from '@atrium/test-support/journeys';
import { keycloakProcess, realmAdmin, type TestPerson } from '@atrium/test-support/keycloak';
import { storedSession } from '@atrium/test-support/page-session';
import { SHELL_URL } from '@atrium/test-support/addresses';
import { expectAccessible } from '@atrium/test-support/accessibility';

/** The atrium realm's admin API: the journeys' people, their credentials and sessions. */
const realm = realmAdmin();
const UNREACHABLE = "Can't reach the sign-in service. Retrying…";

async function signInAt(page: Page, path: string, person: TestPerson): Promise<void> {
  await page.goto(path);
  await signInAtKeycloak(page, person.username, person.password);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
  await expectAccessible(page, 'profile');
}

/** Seconds since `start`, for the journey's notes. */
const since = (start: number) => Math.round((Date.now() - start) / 100) / 10;

test('Keycloak stopped: at boot, during renewal and at sign-out the shell says so and offers Retry; once it is back the person carries on where they were', async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const person = await realm.createPerson({ prefix: 'olga' });
  await signInAt(page, '/profile', person);
  const first = await storedSession(page);

  // Paused, Keycloak accepts connections and never answers: down and slow at once.
  const keycloak = keycloakProcess();
  const visitor = await browser.newContext();
  keycloak.pause();
  try {
    // Boot: someone opens Atrium while Keycloak is down. No endless "Signing you in…".
    const boot = await visitor.newPage();
    const bootStart = Date.now();
    await boot.goto(`${SHELL_URL}/profile`);
    await expect(boot.getByRole('heading', { name: UNREACHABLE })).toBeVisible({ timeout: 15_000 });
    test.info().annotations.push({ type: 'boot message after (s)', description: String(since(bootStart)) });
    await expect(boot.getByText('You will be taken to sign in as soon as it answers.')).toBeVisible();
    await expect(boot.getByRole('button', { name: 'Retry' })).toBeVisible();
    await expectAccessible(boot, 'sign-in-service-unreachable');
    await boot.getByRole('button', { name: 'Retry' }).click();
    await expect(boot.getByRole('heading', { name: UNREACHABLE })).toBeVisible();

    // Renewal: the signed-in person's token comes up for renewal (60 s tokens in the browser tier).
    const banner = page.getByRole('alert').filter({ hasText: UNREACHABLE });
    await expect(banner).toBeVisible({ timeout: 90_000 });
    await expect(banner).toContainText('You can keep working on this page');
    await expect(banner.getByRole('button', { name: 'Retry' })).toBeVisible();
    // Nothing was lost: same page, same person.
    await expect(page).toHaveURL(`${SHELL_URL}/profile`);
    await expect(page.getByTestId('profile-email')).toHaveText(person.email);
    await expectAccessible(page, 'profile-sign-in-service-unreachable');

    // Keycloak comes back: both pages carry on by themselves.
    keycloak.resume();
    const back = Date.now();
    await expect(banner).toBeHidden({ timeout: 20_000 });
    test.info().annotations.push({ type: 'recovered after (s)', description: String(since(back)) });
    await expect(boot).toHaveURL(LOGIN_PAGE, { timeout: 20_000 });
    await expect(boot.getByLabel('Password', { exact: true })).toBeVisible();
  } finally {
    keycloak.resume();
    await visitor.close();
  }

  // The person's session was renewed once Keycloak answered, and their work goes on.
  await expect
    .poll(async () => (await storedSession(page)).access_token, { timeout: 20_000 })
    .not.toBe(first.access_token);
  const theme = page.getByRole('group', { name: 'Theme' });
  await theme.getByLabel('Dark').check();
  await page.getByRole('button', { name: 'Save preferences' }).click();
  await expect(page.getByRole('status').filter({ hasText: /preferences saved/i })).toBeVisible();
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);

  // Sign-out while Keycloak is down: said in words, done once Keycloak answers.
  keycloak.pause();
  try {
    const signOutStart = Date.now();
    await page.getByRole('button', { name: 'Sign out' }).click();
    const signOutBanner = page.getByRole('alert').filter({ hasText: UNREACHABLE });
    await expect(signOutBanner).toBeVisible({ timeout: 15_000 });
    test.info().annotations.push({
      type: 'sign-out message after (s)',
      description: String(since(signOutStart)),
    });
    await expect(signOutBanner).toContainText('You will be signed out as soon as it answers.');
    await expectAccessible(page, 'sign-out-waiting');
  } finally {
    keycloak.resume();
  }
  await page.waitForURL((url) => url.origin === SHELL_URL && url.pathname === '/', {
    waitUntil: 'commit',
    timeout: 30_000,
  });
  // Signed out, the shell sends the browser on to sign in by itself; then the person asks for a page again.
  await expect(page).toHaveURL(LOGIN_PAGE);
  await page.goto('/profile');
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
});

test('a session ended elsewhere ends here too: at once when the person comes back to the tab, and within a minute without any action', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);

  // Signed out by an administrator, the person comes back to the tab: the tab asks Keycloak straight away.
  const returning = await realm.createPerson({ prefix: 'rita' });
  await signInAt(page, '/profile', returning);
  // The person reads the page for a moment (the tab checks at most every 5 s on focus).
  await page.waitForTimeout(6_000);
  await realm.signOutEverywhere(returning);
  const focusAt = Date.now();
  // What the browser does when the person switches back to the tab or window.
  await page.evaluate(() => window.dispatchEvent(new Event('focus')));
  await expect(page).toHaveURL(LOGIN_PAGE, { timeout: 10_000 });
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
  test.info().annotations.push({ type: 'signed out after focus (s)', description: String(since(focusAt)) });

  // Signed out on another device, while this tab sits untouched.
  const away = await realm.createPerson({ prefix: 'ravi' });
  const other = await browser.newContext();
  try {
    const here = await other.newPage();
    await signInAt(here, '/profile', away);
    await realm.signOutEverywhere(away);
    const endedAt = Date.now();
    await expect(here).toHaveURL(LOGIN_PAGE, { timeout: 70_000 });
    await expect(here.getByLabel('Password', { exact: true })).toBeVisible();
    test
      .info()
      .annotations.push({ type: 'signed out untouched after (s)', description: String(since(endedAt)) });
    // And signing in again leads back to the page the person had open.
    await signInAtKeycloak(here, away.username, away.password);
    await expect(here).toHaveURL(`${SHELL_URL}/profile`);
    await expect(here.getByTestId('profile-email')).toHaveText(away.email);
  } finally {
    await other.close();
  }
});
