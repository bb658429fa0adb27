import { expect, test } from '@atrium/test-support/journey-test';
import { openAs, signInAtKeycloak, signOut } from '@atrium/test-support/journeys';
import { realmAdminHeaders } from '@atrium/test-support/keycloak';
import { storedSession as storedUser } from '@atrium/test-support/page-session';
import { expectAccessible } from '@atrium/test-support/accessibility';

function lifespanSeconds(token: string): number {
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
    exp: number;
    iat: number;
  };
  return claims.exp - claims.iat;
}

test('a short-lived access token renews silently while the person works, and sign-out signs out', async ({
  page,
}) => {
  test.setTimeout(240_000);
  const toKeycloak: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame() && frame.url().includes('/realms/atrium/protocol/openid-connect/auth')) {
      toKeycloak.push(frame.url());
    }
  });
  await openAs(page, '/profile', 'alice');
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  const first = await storedUser(page);
  const lifespan = lifespanSeconds(first.access_token);
  // `npm test` starts Keycloak with 60 s tokens; a reused Keycloak with longer ones cannot show a renewal.
  expect(
    lifespan,
    `Access tokens live ${lifespan} s: run Keycloak with ATRIUM_ACCESS_TOKEN_LIFESPAN=60 and a fresh data folder (npm test does).`,
  ).toBeLessThanOrEqual(90);
  const navigationsAfterSignIn = toKeycloak.length;

  // Work past the first token's expiry.
  await page.waitForTimeout((lifespan + 5) * 1000);
  const theme = page.getByRole('group', { name: 'Theme' });
  await theme.getByLabel('Light').check();
  await page.getByRole('button', { name: 'Save preferences' }).click();
  await expect(page.getByRole('status').filter({ hasText: /preferences saved/i })).toBeVisible();
  await expectAccessible(page, 'profile-preferences-saved');

  const renewed = await storedUser(page);
  expect(renewed.access_token).not.toBe(first.access_token);
  expect(renewed.expires_at).toBeGreaterThan(first.expires_at);
  // Renewal used the refresh token in the background: the person was never sent back to Keycloak.
  expect(toKeycloak).toHaveLength(navigationsAfterSignIn);
  await expect(page).toHaveURL('http://localhost:4000/profile');

  await signOut(page);
  await page.goto('/profile');
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
});

test('when the Keycloak session ends behind the shell, failed renewal leads through sign-in back to the same page', async ({
  page,
  request,
}) => {
  test.setTimeout(240_000);
  await openAs(page, '/profile', 'alice');
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  await expectAccessible(page, 'profile');
  const first = await storedUser(page);
  expect(lifespanSeconds(first.access_token), 'npm test runs Keycloak with 60 s tokens').toBeLessThanOrEqual(
    90,
  );

  // An administrator ends alice's sessions in Keycloak, so her refresh token stops working.
  const keycloak = 'http://localhost:8080';
  const headers = await realmAdminHeaders();
  const users = (await (
    await request.get(`${keycloak}/admin/realms/atrium/users?username=alice&exact=true`, { headers })
  ).json()) as { id: string }[];
  expect(users).toHaveLength(1);
  const logout = await request.post(`${keycloak}/admin/realms/atrium/users/${users[0]!.id}/logout`, {
    headers,
  });
  expect(logout.ok()).toBe(true);

  // The shell renews before the access token expires; the refresh is refused, so it sends alice to sign in
  // (her Keycloak session is gone: the password form, not a silent redirect) and then back to /profile.
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible({ timeout: 120_000 });
  await signInAtKeycloak(page, 'alice', 'alice');
  await expect(page).toHaveURL('http://localhost:4000/profile');
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
});
