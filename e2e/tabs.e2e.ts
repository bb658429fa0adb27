import type { Page, Response } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import { TOKEN_ENDPOINT } from '@atrium/test-support/addresses';
import { expectAtriumTheme, openAs } from '@atrium/test-support/journeys';
import { claimsOf } from '@atrium/test-support/keycloak';
import { nextRenewal, storedSession } from '@atrium/test-support/page-session';
import { expectAccessible } from '@atrium/test-support/accessibility';

/** Every refresh-token request a tab sends to Keycloak, with Keycloak's answer. */
function watchRenewals(page: Page, into: { tab: string; status: number }[], tab: string): void {
  page.on('response', (response: Response) => {
    const request = response.request();
    if (request.url() !== TOKEN_ENDPOINT || request.method() !== 'POST') return;
    if (new URLSearchParams(request.postData() ?? '').get('grant_type') !== 'refresh_token') return;
    into.push({ tab, status: response.status() });
  });
}

test('two tabs of one person share the session through several renewals, one renewal at a time, and sign out together', async ({
  context,
}) => {
  test.setTimeout(420_000);
  const renewals: { tab: string; status: number }[] = [];
  const toKeycloak: string[] = [];
  const first = await context.newPage();
  const second = await context.newPage();
  for (const [tab, page] of [
    ['first', first],
    ['second', second],
  ] as const) {
    watchRenewals(page, renewals, tab);
    page.on('framenavigated', (frame) => {
      if (
        frame === page.mainFrame() &&
        frame.url().startsWith(`${TOKEN_ENDPOINT.replace('/token', '/auth')}`)
      ) {
        toKeycloak.push(tab);
      }
    });
  }

  await openAs(first, '/profile', 'alice');
  await expect(first.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  await expectAccessible(first, 'profile');
  const signedIn = toKeycloak.length;
  // The second tab finds the session the first one stored: no second sign-in, no second token chain.
  await second.goto('/profile');
  await expect(second.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  expect(toKeycloak).toHaveLength(signedIn);

  let session = await storedSession(first);
  const lifespan =
    (claimsOf(session.access_token).exp as number) - (claimsOf(session.access_token).iat as number);
  expect(lifespan, 'npm test runs Keycloak with 60 s tokens').toBeLessThanOrEqual(90);

  // Both tabs' timers fire for the same token: the race that ends one tab's session without coordination.
  for (let round = 1; round <= 3; round += 1) {
    session = await nextRenewal(first, session);
    // The other tab took the result instead of redeeming the spent refresh token.
    await expect.poll(async () => (await storedSession(second)).refresh_token).toBe(session.refresh_token);
    // Reloading both at once starts both tabs' expiry timers together, so the next renewal races for real.
    await Promise.all([first.reload(), second.reload()]);
    for (const page of [first, second]) {
      await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
    }
  }
  await expectAccessible(second, 'profile');

  expect(renewals.length, 'each renewal was made by exactly one tab').toBeGreaterThanOrEqual(3);
  expect(renewals.filter((renewal) => renewal.status !== 200)).toEqual([]);
  expect(toKeycloak, 'neither tab was sent back to sign in').toHaveLength(signedIn);

  // Signing out in one tab signs out the other, which asks before signing in again.
  // (Waited for from before the click: the first tab passes the shell's home on its way to sign in.)
  const firstBackHome = first.waitForURL(
    (url) => url.origin === 'http://localhost:4000' && url.pathname === '/',
    { waitUntil: 'commit' },
  );
  await first.getByRole('button', { name: 'Sign out' }).click();
  await expect(second.getByRole('heading', { name: 'You have been signed out' })).toBeVisible();
  await expectAccessible(second, 'signed-out-notice');
  // (Had the second tab gone to Keycloak at once, it could have arrived before the first tab's sign-out and
  // been signed straight back in; the person reads the notice first.)
  await firstBackHome;
  // From there the signed-out shell sends the first tab on to sign in.
  await expect(first.getByLabel('Password', { exact: true })).toBeVisible();
  await second.getByRole('button', { name: 'Sign in again' }).click();
  await expect(second.getByLabel('Password', { exact: true })).toBeVisible();
  await expectAtriumTheme(second, 'keycloak-sign-in');
});
