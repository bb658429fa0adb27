import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import { expectAccessible, tabTo } from '@atrium/test-support/accessibility';
import {
  publishFixture,
  runReleaseCli,
  writeFixturePackage,
  writeFixtureRemote,
  fixtureMetadata,
} from '@atrium/test-support/fixture-remotes';
import { expectAtriumTheme, LOGIN_PAGE } from '@atrium/test-support/journeys';
import { realmAdmin } from '@atrium/test-support/keycloak';
import { SHELL_URL } from '@atrium/test-support/addresses';

// Each family of journeys done with the keyboard alone: Tab and Shift+Tab to move, Enter and Space to act, the
// arrow keys and typing inside a control. Nothing is clicked and no focus is set by the test. After each
// navigation, focus is on the new page's <main>; after a dialog, back on the control that opened it; after an
// action that removes the control that had focus, on the action's outcome.

/** Keycloak's sign-in form, filled and sent from the keyboard; the page must be on it. */
async function signInWithKeyboard(page: Page, username: string, password: string): Promise<void> {
  await expect(page).toHaveURL(LOGIN_PAGE);
  const name = page.getByLabel(/username or email/i);
  await expect(name).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-sign-in');
  await tabTo(page, name);
  await page.keyboard.type(username);
  await tabTo(page, page.getByLabel('Password', { exact: true }));
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('signed-in-user')).toBeVisible();
}

/** Follows a link of the shell's main navigation with the keyboard; focus then starts at the new page. */
async function followMainLink(page: Page, name: string, options?: { back?: boolean }): Promise<void> {
  await tabTo(page, page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name }), {
    presses: 200,
    ...options,
  });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
}

test('a person signs in, moves between pages and signs out with the keyboard alone', async ({ page }) => {
  const person = await realmAdmin().createPerson({ prefix: 'kira' });
  await page.goto('/profile');
  await signInWithKeyboard(page, person.username, person.password);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);
  await expectAccessible(page, 'profile');

  // The skip link comes first, and takes focus past the header to the page.
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();

  await followMainLink(page, 'Home', { back: true });
  await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
  await expectAccessible(page, 'home');
  await followMainLink(page, 'Profile');
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);

  await tabTo(page, page.getByRole('button', { name: 'Sign out' }), { presses: 200, back: true });
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(LOGIN_PAGE);
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-sign-in');
});

test('a person chooses a theme and changes the password from the profile with the keyboard alone', async ({
  page,
}) => {
  const person = await realmAdmin().createPerson({ prefix: 'kira' });
  await page.goto('/profile');
  await signInWithKeyboard(page, person.username, person.password);
  await expect(page.getByTestId('profile-email')).toHaveText(person.email);

  // A radio group is one Tab stop; the arrow keys choose within it.
  const theme = page.getByRole('group', { name: 'Theme' });
  await tabTo(page, theme.getByRole('radio', { checked: true }), { presses: 80 });
  await expect(theme.getByLabel('System')).toBeChecked();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowDown');
  await expect(theme.getByLabel('Dark')).toBeChecked();
  const save = page.getByRole('button', { name: 'Save preferences' });
  await tabTo(page, save);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('status').filter({ hasText: /preferences saved/i })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  // The button is still there: focus stays on it.
  await expect(save).toBeFocused();

  // The Security section asks first for access to the person's account at the sign-in service.
  await tabTo(page, page.getByTestId('security-continue-access').first(), { presses: 80 });
  await page.keyboard.press('Enter');
  await page.waitForURL(`${SHELL_URL}/profile`);
  await expect(page.getByTestId('security-credentials')).toBeVisible();
  await expect(page.getByTestId('security-sessions')).toBeVisible();
  await expectAccessible(page, 'profile-and-security-dark');

  // Keycloak's "Update password", there and back, from the keyboard.
  await tabTo(page, page.getByTestId('security-change-password'), { presses: 120 });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Update password' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-update-password-cancellable');
  const newPassword = `Keys${randomBytes(8).toString('hex')}2026`;
  await tabTo(page, page.getByLabel('New Password', { exact: true }));
  await page.keyboard.type(newPassword);
  await tabTo(page, page.getByLabel('Confirm password', { exact: true }));
  await page.keyboard.type(newPassword);
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
  const result = page.getByTestId('security-action-result');
  await expect(result).toContainText('Your password was changed.');
  await expectAccessible(page, 'profile-and-security-password-changed');
});

test('an administrator activates a version, runs and aborts a canary and filters the audit log with the keyboard alone', async ({
  page,
}) => {
  test.setTimeout(120_000);
  // A remote with a version beside its active one, so there is something to activate and to run as a canary.
  const remote = `keyed${randomBytes(3).toString('hex')}`;
  const title = fixtureMetadata(remote, `/${remote}`).title;
  await publishFixture(
    remote,
    writeFixtureRemote(remote, 'renders', `${title} 1.0.0 works`),
    `/${remote}`,
    [],
  );
  const next = writeFixtureRemote(remote, 'renders', `${title} 1.1.0 works`);
  writeFixturePackage(next, fixtureMetadata(remote, `/${remote}`, []), '1.1.0');
  const published = await runReleaseCli('release', remote, ['--dir', next], next);
  expect(published.code, published.output).toBe(0);

  await page.goto('/');
  await signInWithKeyboard(page, 'ada', 'ada');
  await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
  await expectAccessible(page, 'home');
  await followMainLink(page, 'Admin');
  await expect(page.getByRole('heading', { name: 'Registry console' })).toBeVisible();
  const card = page.getByTestId(`remote-${remote}`);
  await expect(card).toBeVisible();

  // The confirmation is a modal dialog: Escape closes it and focus is back on the button that opened it.
  const activate = card.getByRole('button', { name: 'Activate 1.1.0' });
  await tabTo(page, activate, { presses: 300 });
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: `Activate ${title} 1.1.0?` });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Activate 1.1.0' })).toBeFocused();
  await expectAccessible(page, 'admin-activate-dialog');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(activate).toBeFocused();

  // Confirmed, the version's buttons are gone: focus is on what happened.
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('button', { name: 'Activate 1.1.0' })).toBeFocused();
  await page.keyboard.press('Enter');
  const activated = page.getByRole('status').filter({ hasText: `${title} 1.1.0 is now active` });
  await expect(activated).toBeFocused();
  await expect(card.getByTestId('active-version')).toHaveText('1.1.0');
  await expectAccessible(page, 'admin-remotes-activated');

  // The Rollouts tab: a canary of the version before, started and aborted.
  const tabs = page.getByRole('navigation', { name: 'Registry console' });
  await tabTo(page, tabs.getByRole('link', { name: 'Rollouts' }), { presses: 300, back: true });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  const rollout = page.getByTestId(`rollouts-${remote}`);
  await expect(page.getByTestId(`rollout-state-${remote}`)).toHaveText('No canary has run.');
  await tabTo(page, rollout.getByRole('button', { name: 'Start canary' }), { presses: 300 });
  await page.keyboard.press('Enter');
  const started = rollout.getByRole('status').filter({ hasText: 'Canary started' });
  await expect(started).toBeFocused();
  await expect(started).toContainText('Canary 1.0.0 runs for 10 % of people');
  await expectAccessible(page, 'admin-rollouts-canary-running');
  await tabTo(page, rollout.getByRole('button', { name: 'Abort' }));
  await page.keyboard.press('Enter');
  const aborted = rollout.getByRole('status').filter({ hasText: 'Canary aborted' });
  await expect(aborted).toBeFocused();
  await expect(rollout.getByRole('button', { name: 'Abort' })).toHaveCount(0);

  // The audit log, filtered by person and remote from the keyboard.
  await tabTo(page, tabs.getByRole('link', { name: 'Audit log' }), { presses: 300, back: true });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();
  await expect(page.getByTestId('audit-table')).toBeVisible();
  const filters = page.getByRole('form', { name: 'Filter the audit log' });
  await tabTo(page, filters.getByLabel('Person (user name)'));
  await page.keyboard.type('ada');
  await tabTo(page, filters.getByLabel('Remote'));
  // Typing in a closed select picks the option that starts with what was typed.
  await page.keyboard.type(title);
  await expect(filters.getByLabel('Remote')).toHaveValue(remote);
  await tabTo(page, filters.getByRole('button', { name: 'Show entries' }));
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`[?&]remote=${remote}(&|$)`));
  const table = page.getByTestId('audit-table');
  await expect(table).toContainText('Activated version 1.1.0 (was 1.0.0)');
  await expect(table).toContainText('Stopped the canary of version 1.0.0');
  // The table's scrolling region takes focus, so a wide table can be scrolled sideways with the arrow keys.
  await tabTo(page, page.getByRole('region', { name: 'Audit log entries, newest first' }));
  await expectAccessible(page, 'admin-audit-filtered');
});

test('a developer turns down a dev-override link with the keyboard alone, and focus goes back to the page', async ({
  page,
}) => {
  await page.goto('/profile');
  await signInWithKeyboard(page, 'ada', 'ada');
  await expect(page.getByTestId('profile-email')).toBeVisible();
  await page.goto(
    `/profile?atrium-dev-override=${encodeURIComponent('profile@http://localhost:5001/mf-manifest.json')}`,
  );
  const confirmation = page.getByTestId('dev-override-confirm');
  await expect(confirmation).toBeVisible();
  await expect(page.getByTestId('profile-email')).toBeVisible();
  await expectAccessible(page, 'dev-override-confirm');
  // The question comes first on the page: its buttons are the first Tab stops.
  await tabTo(page, confirmation.getByRole('button', { name: 'Load from http://localhost:5001' }), {
    presses: 3,
  });
  await tabTo(page, confirmation.getByRole('button', { name: 'Cancel' }), { presses: 2 });
  await page.keyboard.press('Enter');
  await expect(confirmation).toHaveCount(0);
  await expect(page.getByRole('main')).toBeFocused();
  await expect(page).toHaveURL(`${SHELL_URL}/profile`);
});
