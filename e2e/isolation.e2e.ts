import { expect, test } from '@atrium/test-support/journey-test';
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { publishFixture, releaseStoreDir, writeFixtureRemote } from '@atrium/test-support/fixture-remotes';
import { openAs } from '@atrium/test-support/journeys';
import { expectAccessible } from '@atrium/test-support/accessibility';

test('a remote whose files are gone, one that throws and one that hangs each fail in their own slot', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const ghost = writeFixtureRemote('ghost', 'renders', 'The ghost feature is back');
  const crashing = writeFixtureRemote('crashing', 'throws', 'crashing exploded while rendering');
  const sluggish = writeFixtureRemote('sluggish', 'hangs', 'never shown');
  await publishFixture('ghost', ghost, '/ghost');
  await publishFixture('crashing', crashing, '/crashing');
  await publishFixture('sluggish', sluggish, '/sluggish');
  // Registered and active, but its files disappear from the release store.
  const ghostRelease = join(releaseStoreDir(), 'ghost/1.0.0');
  rmSync(ghostRelease, { recursive: true, force: true });

  await openAs(page, '/ghost', 'ada');
  const main = page.getByRole('main');
  await expect(main.getByRole('alert')).toContainText('Ghost is unavailable');
  await expect(main.getByRole('alert')).toContainText('could not be downloaded');
  await expectAccessible(page, 'remote-unavailable-download');
  // The shell and the other features keep working.
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByTestId('profile-email')).toHaveText('ada@atrium.test');
  await expectAccessible(page, 'profile');

  await nav.getByRole('link', { name: 'Crashing' }).click();
  await expect(main.getByRole('alert')).toContainText('Crashing is unavailable');
  await expect(main.getByRole('alert')).toContainText('crashing exploded while rendering');
  await expectAccessible(page, 'remote-unavailable-crash');

  await nav.getByRole('link', { name: 'Sluggish' }).click();
  await expect(main.getByRole('status')).toContainText('Loading Sluggish');
  await expect(main.getByRole('alert')).toContainText('Sluggish did not load within 10 s', {
    timeout: 20_000,
  });
  await expectAccessible(page, 'remote-unavailable-timeout');
  await nav.getByRole('link', { name: 'Admin' }).click();
  await expect(page.getByRole('heading', { name: 'Registry console' })).toBeVisible();
  await expect(page.getByTestId('remote-profile')).toBeVisible();
  await expectAccessible(page, 'admin-remotes');

  // The files come back: Retry in the slot recovers without a reload.
  await nav.getByRole('link', { name: 'Ghost' }).click();
  await expect(main.getByRole('alert')).toContainText('Ghost is unavailable');
  cpSync(ghost, ghostRelease, { recursive: true });
  await main.getByRole('button', { name: 'Retry' }).click();
  await expect(main.getByText('The ghost feature is back')).toBeVisible();
  await expectAccessible(page, 'fixture-remote');
});
