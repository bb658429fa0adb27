import { expect, test } from '@playwright/test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openAs } from './support/keycloak.ts';
import { publishFixture, releaseStoreDir, writeFixtureRemote } from './support/releases.ts';

test('a remoteEntry.js changed in the release store after publishing is refused and its slot fails', async ({
  browser,
  page,
}) => {
  const genuine = writeFixtureRemote('tampered', 'renders', 'The genuine release');
  await publishFixture('tampered', genuine, '/tampered');

  // The file as published matches the hash the registry recorded.
  await openAs(page, '/tampered', 'ada');
  await expect(page.getByRole('main').getByText('The genuine release')).toBeVisible();

  // Someone with write access to the store (or the CDN in front of it) swaps the file the registry hashed.
  writeFileSync(
    join(releaseStoreDir(), 'tampered/1.0.0/remoteEntry.js'),
    'var tampered = { init: function () { return Promise.resolve(); }, get: function () { ' +
      'return Promise.resolve(function () { return { Feature: function () { return "Injected code ran"; } }; }); } };\n',
  );
  // A fresh browser, so nothing comes from the first page's cache.
  const fresh = await browser.newPage();
  const consoleErrors: string[] = [];
  fresh.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  await openAs(fresh, '/tampered', 'ada');
  const main = fresh.getByRole('main');
  await expect(main.getByRole('alert')).toContainText('Tampered is unavailable');
  await expect(main.getByText('Injected code ran')).toHaveCount(0);
  // Refused by the browser's integrity check, not by a network or CORS failure.
  expect(consoleErrors.join('\n')).toMatch(/integrity/i);
  // The rest of the shell is unaffected.
  await fresh.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }).click();
  await expect(fresh.getByTestId('profile-email')).toHaveText('ada@atrium.test');
  await fresh.close();
});
