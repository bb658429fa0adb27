import { expect, test } from '@atrium/test-support/journey-test';
import { runReleaseCli, writeFixturePackage, writeFixtureRemote } from '@atrium/test-support/fixture-remotes';
import { openAs } from '@atrium/test-support/journeys';
import { expectAccessible } from '@atrium/test-support/accessibility';

test('an admin creates a remote in the console, then its team ships it with the CLI', async ({ page }) => {
  test.setTimeout(120_000);
  const dir = writeFixtureRemote('leave', 'renders', 'Time off is here');
  writeFixturePackage(dir, {
    remote: 'leave',
    title: 'Time off',
    route: '/time-off',
    navOrder: 20,
    requiredRoles: [],
    owner: 'atrium-deployer',
  });
  const ship = () => runReleaseCli('release', 'leave', ['--dir', dir, '--activate'], dir);

  // A team cannot bring a remote into being by publishing it: that is an administrator's act.
  const tooEarly = await ship();
  expect(tooEarly.code).toBe(1);
  expect(tooEarly.output).toContain('an administrator must create it first');

  await openAs(page, '/admin', 'ada');
  await page.getByRole('button', { name: 'New remote' }).click();
  const form = page.getByRole('form', { name: 'New remote' });
  await form.getByLabel('Name').fill('leave');
  await form.getByLabel('Title').fill('Time off');
  await form.getByLabel('Path').fill('/time off');
  await form.getByLabel('Order').fill('20');
  await expect(form.getByLabel('Owner')).toHaveValue('atrium-deployer');
  await form.getByRole('button', { name: 'Create remote' }).click();
  // The API's verdict on one field is shown beside it; the rest of the form is kept.
  await expect(form.getByTestId('error-path')).toContainText('kebab-case');
  await expectAccessible(page, 'admin-new-remote-invalid');
  await form.getByLabel('Path').fill('/time-off');
  await form.getByRole('button', { name: 'Create remote' }).click();
  await expect(page.getByText('Time off (leave) created')).toBeVisible();
  const card = page.getByTestId('remote-leave');
  await expect(card.getByTestId('owner')).toHaveText('atrium-deployer');
  await expect(card.getByTestId('active-version')).toHaveText('none');
  await expectAccessible(page, 'admin-remotes-created');

  const shipped = await ship();
  expect(shipped.output).toContain('registered leave 1.0.0');
  expect(shipped.output).toContain('it is now live');
  expect(shipped.code).toBe(0);

  await page.goto('/time-off');
  await expect(page.getByRole('main').getByText('Time off is here')).toBeVisible();
  await expect(
    page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Time off' }),
  ).toBeVisible();
  await expectAccessible(page, 'fixture-remote');
});

test("a feature team's deployer cannot replace the admin console, which keeps working", async ({ page }) => {
  test.setTimeout(120_000);
  // The CLI with the feature teams' credentials (the default), aimed at the platform's remote.
  const attack = await runReleaseCli('release', 'admin', ['--version', '9.9.9', '--no-build', '--activate']);
  expect(attack.code).toBe(1);
  expect(attack.output).toContain('owned by the deployer client "atrium-platform"');

  await openAs(page, '/admin', 'ada');
  const card = page.getByTestId('remote-admin');
  await expect(card.getByTestId('owner')).toHaveText('atrium-platform');
  await expect(card.getByTestId('version-9.9.9')).toHaveCount(0);
  await expect(page.getByTestId('remote-release')).not.toContainText('9.9.9');
  await expectAccessible(page, 'admin-remotes');
});

test('a feature team ships profile 1.0.1 with the CLI, and an admin rolls back to 1.0.0 in the console', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await openAs(page, '/profile', 'ada');
  await expect(page.getByTestId('profile-email')).toBeVisible();
  await expectAccessible(page, 'profile');
  await expect(page.getByTestId('remote-release')).toHaveText('profile 1.0.0');

  const release = await runReleaseCli('release', 'profile', ['--version', '1.0.1', '--activate']);
  expect(release.output).toContain('registered profile 1.0.1');
  expect(release.output).toContain('it is now live');
  expect(release.code).toBe(0);

  // Publishing the same version again is refused: releases are immutable.
  const again = await runReleaseCli('release', 'profile', ['--version', '1.0.1', '--no-build']);
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
  await expectAccessible(page, 'admin-activate-dialog');
  await dialog.getByRole('button', { name: 'Activate 1.0.0' }).click();
  await expect(page.getByText('Profile 1.0.0 is now active')).toBeVisible();
  await expect(card.getByTestId('active-version')).toHaveText('1.0.0');
  await expectAccessible(page, 'admin-remotes-activated');

  await page.getByRole('link', { name: 'Audit log' }).click();
  const table = page.getByTestId('audit-table');
  await expect(table).toContainText('Ada Lovelace (you)');

  // Only ada's activations of profile, asked for in the page: the address holds the filters, a reload keeps them.
  const filters = page.getByRole('form', { name: 'Filter the audit log' });
  await filters.getByLabel('Person (user name)').fill('ada');
  await filters.getByLabel('Action').selectOption({ label: 'Activated a version' });
  await filters.getByLabel('Remote').selectOption({ label: 'Profile (profile)' });
  await filters.getByRole('button', { name: 'Show entries' }).click();
  const filtered =
    'http://localhost:4000/admin/audit?actor=ada&action=remote.version.activated&remote=profile';
  await expect(page).toHaveURL(filtered);
  // Who and what of each row shown: ada's activations only (the whole log's first page has the deployer's too).
  const rows = () =>
    table
      .locator('tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? '').slice(1, 3)),
      );
  const onlyAdasActivations = async () => {
    const shown = await rows();
    return (
      shown.length > 0 &&
      shown.every(([who, what]) => who === 'Ada Lovelace (you), ada' && what?.startsWith('Activated version'))
    );
  };
  await expect.poll(onlyAdasActivations).toBe(true);
  await expect(table.locator('tbody tr').first()).toContainText('Activated version 1.0.0 (was 1.0.1)');
  await expect(table.getByTitle('remote.version.activated').first()).toBeVisible();

  await page.reload();
  await expect(page).toHaveURL(filtered);
  await expect(filters.getByLabel('Person (user name)')).toHaveValue('ada');
  await expect(filters.getByLabel('Action')).toHaveValue('remote.version.activated');
  await expect(filters.getByLabel('Remote')).toHaveValue('profile');
  await expect.poll(onlyAdasActivations).toBe(true);
  await expectAccessible(page, 'admin-audit-filtered');

  await page.goto('/profile');
  await expect(page.getByTestId('remote-release')).toHaveText('profile 1.0.0');
});
