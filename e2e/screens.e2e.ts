import { expect, test, type Page } from '@playwright/test';
import { expectUsableScreen, SCREEN_WIDTHS, tabTo } from '@atrium/test-support/accessibility';
import { allowAccountAccess, LOGIN_PAGE, signInAtKeycloak } from '@atrium/test-support/journeys';

// Each main screen, as ada (who may use every feature), at a phone's and a laptop's width, in the light and
// the dark theme: no serious or critical axe-core violation, and no sideways scrolling of the page.

/** Ada's theme preference is "System", so the emulated colour scheme picks light or dark. */
async function followSystemTheme(page: Page): Promise<void> {
  const theme = page.getByRole('group', { name: 'Theme' });
  if (await theme.getByLabel('System').isChecked()) return;
  await theme.getByLabel('System').check();
  await page.getByRole('button', { name: 'Save preferences' }).click();
  await expect(page.getByRole('status').filter({ hasText: /preferences saved/i })).toBeVisible();
}

for (const width of SCREEN_WIDTHS) {
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`every main screen at ${width} px in the ${colorScheme} theme`, async ({ page }) => {
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme });
      const screen = (name: string) => expectUsableScreen(page, `${name}@${width}/${colorScheme}`);

      await page.goto('/');
      await expect(page).toHaveURL(LOGIN_PAGE);
      await expect(page.getByLabel(/username or email/i)).toBeVisible();
      await screen('sign-in');
      await signInAtKeycloak(page, 'ada', 'ada');
      await expect(page.getByTestId('signed-in-user')).toBeVisible();
      await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
      await screen('home');

      await page.goto('/profile');
      await expect(page.getByTestId('profile-email')).toBeVisible();
      await followSystemTheme(page);
      await allowAccountAccess(page);
      await screen('profile-and-security');

      await page.goto('/admin');
      await expect(page.getByTestId('remote-profile')).toBeVisible();
      await screen('admin-remotes');

      await page.goto('/admin/rollouts');
      await expect(page.getByTestId('rollout-state-profile')).toBeVisible();
      await expect(page.getByTestId('rollouts-profile').getByRole('status')).toHaveCount(0);
      await screen('admin-rollouts');

      await page.goto('/admin/audit');
      await expect(page.getByTestId('audit-table')).toBeVisible();
      await screen('admin-audit');
    });
  }
}

test('ada signs in and goes through the registry console with the keyboard alone', async ({ page }) => {
  await page.goto('/admin');
  await expect(page).toHaveURL(LOGIN_PAGE);
  await tabTo(page, page.getByLabel(/username or email/i));
  await page.keyboard.type('ada');
  await tabTo(page, page.getByLabel('Password', { exact: true }));
  await page.keyboard.type('ada');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Registry console' })).toBeVisible();

  const tabs = page.getByRole('navigation', { name: 'Registry console' });
  await tabTo(page, tabs.getByRole('link', { name: 'Rollouts' }));
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('rollout-state-profile')).toBeVisible();
  const share = page.getByTestId('rollouts-profile').getByLabel('Share of people (%)');
  await tabTo(page, share, { presses: 80 });
  await expect(share).toBeFocused();

  await tabTo(page, tabs.getByRole('link', { name: 'Audit log' }), { presses: 80, back: true });
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('audit-table')).toBeVisible();
  // The table's scrolling region takes focus, so it can be scrolled sideways with the arrow keys.
  await tabTo(page, page.getByRole('region', { name: 'Audit log entries, newest first' }));
});
