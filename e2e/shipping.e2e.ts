import { expect, test } from '@playwright/test';
import { openAs } from './support/keycloak.ts';
import { runReleaseCli } from './support/releases.ts';

test('a feature team ships profile 1.0.1 with the CLI, and an admin rolls back to 1.0.0 in the console', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await openAs(page, '/profile', 'ada');
  await expect(page.getByTestId('remote-release')).toHaveText('profile 1.0.0');

  const release = await runReleaseCli('profile', ['--version', '1.0.1', '--activate']);
  expect(release.output).toContain('registered profile 1.0.1');
  expect(release.output).toContain('it is now live');
  expect(release.code).toBe(0);

  // Publishing the same version again is refused: releases are immutable.
  const again = await runReleaseCli('profile', ['--version', '1.0.1', '--no-build']);
  expect(again.code).toBe(1);
  expect(again.output).toMatch(/already (registered|in the release store)/);

  // No shell rebuild: the next load asks the registry and gets the new release.
  await page.reload();
  await expect(page.getByTestId('remote-release')).toHaveText('profile 1.0.1');
  await expect(page.getByTestId('profile-email')).toHaveText('ada@atrium.test');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click();
  const card = page.getByTestId('remote-profile');
  await expect(card.getByTestId('active-version')).toHaveText('1.0.1');
  await expect(card.getByTestId('version-1.0.1')).toContainText('atrium-deployer');
  await card.getByRole('button', { name: 'Activate 1.0.0' }).click();
  const dialog = page.getByRole('dialog', { name: 'Activate Profile 1.0.0?' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Activate 1.0.0' }).click();
  await expect(page.getByText('Profile 1.0.0 is now active')).toBeVisible();
  await expect(card.getByTestId('active-version')).toHaveText('1.0.0');

  await page.getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByTestId('audit-table')).toContainText('ada');

  await page.goto('/profile');
  await expect(page.getByTestId('remote-release')).toHaveText('profile 1.0.0');
});
