import { expect, test } from '@atrium/test-support/journey-test';
import { gzipSync } from 'node:zlib';
import { BUDGETS } from '../infra/budgets/bundle-sizes.ts';
import { publishFixture, writeFixtureRemote } from '@atrium/test-support/fixture-remotes';
import { openAs } from '@atrium/test-support/journeys';
import { RELEASE_STORE_URL } from '@atrium/test-support/addresses';
import { expectAccessible } from '@atrium/test-support/accessibility';

test('alice sees Profile but not Admin, and no file of the admin remote is ever requested', async ({
  page,
}) => {
  const requested: string[] = [];
  page.on('request', (request) => requested.push(request.url()));

  await openAs(page, '/', 'alice');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Profile' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Admin' })).toHaveCount(0);
  // The browser tab names the page the person is on, for the shell's pages and the remotes' alike.
  await expect(page).toHaveTitle('Home · Atrium');
  const features = page.getByRole('region', { name: 'Your features' });
  await expect(features.getByRole('link', { name: 'Profile' })).toBeVisible();
  await expect(features.getByRole('link', { name: 'Admin' })).toHaveCount(0);
  await expectAccessible(page, 'home');

  await nav.getByRole('link', { name: 'Profile' }).click();
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  await expect(page).toHaveTitle('Your account · Atrium');
  await expectAccessible(page, 'profile');

  // Typing the admin route is no way in either: the shell does not know the remote at all.
  await page.goto('/admin');
  await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  await expect(page).toHaveTitle('Page not found · Atrium');
  await expectAccessible(page, 'not-found');

  expect(requested.filter((url) => url.startsWith(`${RELEASE_STORE_URL}/profile/`)).length).toBeGreaterThan(
    0,
  );
  expect(requested.filter((url) => url.startsWith(`${RELEASE_STORE_URL}/admin/`))).toEqual([]);
});

test('ada sees Profile and Admin and opens the registry console', async ({ page }) => {
  await openAs(page, '/', 'ada');
  const nav = page.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Profile' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
  await expectAccessible(page, 'home');
  await nav.getByRole('link', { name: 'Admin' }).click();

  await expect(page).toHaveURL('http://localhost:4000/admin');
  await expect(page.getByRole('heading', { name: 'Registry console' })).toBeVisible();
  await expect(page.getByTestId('remote-profile').getByTestId('active-version')).toHaveText(/\d+\.\d+\.\d+/);
  await expect(page).toHaveTitle('Remotes · Registry console · Atrium');
  await expectAccessible(page, 'admin-remotes');

  // The console's own navigation goes through the sdk's Link: no reload, the shell's router moves.
  await page.getByRole('link', { name: 'Audit log' }).click();
  await expect(page).toHaveURL('http://localhost:4000/admin/audit');
  await expect(page.getByText('Page 1', { exact: true })).toBeVisible();
  await expect(page).toHaveTitle('Audit log · Registry console · Atrium');
  await expect(page.getByTestId('audit-table')).toBeVisible();
  await expectAccessible(page, 'admin-audit');
  // Back at home the remote's title is gone with it.
  await nav.getByRole('link', { name: 'Home' }).click();
  await expect(page).toHaveTitle('Home · Atrium');
});

test('an admin hides a feature from everyone but admins in the console: alice no longer sees or downloads it', async ({
  browser,
  page,
}) => {
  const dir = writeFixtureRemote('notice', 'renders', 'Notice board');
  // Created by the platform for everyone, published by its owning deployer.
  await publishFixture('notice', dir, '/notice', []);

  // A browser context of her own (axe-core opens a page of its own in the page's context).
  const alice = await (await browser.newContext()).newPage();
  await openAs(alice, '/notice', 'alice');
  await expect(alice.getByRole('main').getByText('Notice board')).toBeVisible();
  await expectAccessible(alice, 'fixture-remote');

  await openAs(page, '/admin', 'ada');
  await page.getByRole('button', { name: 'Edit settings of Notice' }).click();
  const form = page.getByRole('form', { name: 'Settings of Notice' });
  await form.getByLabel('Required roles').fill('atrium-admin');
  await expectAccessible(page, 'admin-remote-settings');
  await form.getByRole('button', { name: 'Save settings' }).click();
  await expect(page.getByText('Notice saved')).toBeVisible();
  await expect(page.getByTestId('remote-notice')).toContainText('needs atrium-admin');

  // At alice's next load the registry no longer lists it, so its files are never requested.
  const requested: string[] = [];
  alice.on('request', (request) => requested.push(request.url()));
  await alice.goto('/');
  await expect(
    alice.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Profile' }),
  ).toBeVisible();
  await expect(
    alice.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Notice' }),
  ).toHaveCount(0);
  await alice.goto('/notice');
  await expect(alice.getByRole('heading', { name: 'Page not found' })).toBeVisible();
  expect(requested.filter((url) => url.startsWith(`${RELEASE_STORE_URL}/notice/`))).toEqual([]);
  await alice.context().close();

  await page.getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByTestId('audit-table')).toContainText('Changed the required roles');
  await expectAccessible(page, 'admin-audit');
});

test('the shell loads at most its budget of JavaScript (130 KB gzip) before the first remote, which renders soon after', async ({
  page,
}) => {
  await openAs(page, '/', 'alice');
  await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
  await expectAccessible(page, 'home');
  // A fresh navigation in the signed-in session: count what the shell loads before it asks for a remote.
  const shellScripts: string[] = [];
  let remoteRequested = false;
  page.on('request', (request) => {
    if (request.url().startsWith(RELEASE_STORE_URL)) remoteRequested = true;
    else if (!remoteRequested && request.resourceType() === 'script') shellScripts.push(request.url());
  });
  await page.goto('/profile');
  await expect(page.getByTestId('profile-email')).toBeVisible();
  await expectAccessible(page, 'profile');

  let gzipTotal = 0;
  for (const url of shellScripts) {
    const body = Buffer.from(await (await page.request.get(url)).body());
    gzipTotal += gzipSync(body).length;
  }
  const timing = await page.evaluate(() => {
    const ready = performance.getEntriesByName('atrium:shell-ready')[0];
    const rendered = performance.getEntriesByName('atrium:remote-rendered:profile')[0];
    return ready && rendered ? rendered.startTime - ready.startTime : null;
  });
  console.log(`shell_initial_js_kb=${(gzipTotal / 1024).toFixed(1)}`);
  console.log(`shell_initial_js_files=${shellScripts.length}`);
  console.log(`shell_ready_to_profile_rendered_ms=${timing?.toFixed(0)}`);
  expect(shellScripts.length).toBeGreaterThan(0);
  // The shell's budget is checked here, on the files a browser really requests, because which of the build's
  // chunks load before the first remote is decided at run time by the federation runtime.
  expect(gzipTotal).toBeLessThanOrEqual(BUDGETS.shellInitialJs);
  expect(timing).not.toBeNull();
});
