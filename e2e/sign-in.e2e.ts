import type { Page } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import { expectAtriumTheme, signOut } from '@atrium/test-support/journeys';
import { expectAccessible } from '@atrium/test-support/accessibility';
import { storedSession } from '@atrium/test-support/page-session';

async function signInAtKeycloak(page: Page, username: string, password: string): Promise<void> {
  await expect(page).toHaveURL(/\/realms\/atrium\/protocol\/openid-connect\/auth/);
  await page.getByLabel(/username or email/i).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: /sign in/i }).click();
}

test('alice signs in once, sees her profile from the API, keeps her theme across a reload and signs out', async ({
  page,
}) => {
  // The stack runs two API processes behind a round-robin proxy; note which one served each API call.
  const upstreams = new Set<string>();
  page.on('response', (response) => {
    const upstream = response.headers()['x-atrium-upstream'];
    if (upstream && new URL(response.url()).pathname.startsWith('/api/')) upstreams.add(upstream);
  });

  // Asking for a feature route first proves the person comes back to the route they asked for.
  await page.goto('/profile');
  // Keycloak's sign-in page, in Atrium's login theme.
  await expect(page).toHaveURL(/\/realms\/atrium\/protocol\/openid-connect\/auth/);
  await expect(page.getByRole('heading', { name: 'Sign in to Atrium' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-sign-in');
  await signInAtKeycloak(page, 'alice', 'alice');

  await expect(page).toHaveURL('http://localhost:4000/profile');
  await expect(page.getByRole('heading', { name: 'Your account' })).toBeVisible();
  // The e-mail comes from GET /api/me, which the API serves only after checking alice's access token.
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  // The callback's code and state never stay in the address bar.
  expect(new URL(page.url()).search).toBe('');
  await expectAccessible(page, 'profile');

  const theme = page.getByRole('group', { name: 'Theme' });
  await theme.getByLabel('Dark').check();
  await page.getByRole('button', { name: 'Save preferences' }).click();
  await expect(page.getByRole('status')).toHaveText(/preferences saved/i);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await expectAccessible(page, 'profile-dark');

  // The session is shared by the tabs (IndexedDB, not Web Storage) and bound to a key the page can use but not read: the
  // DPoP key in IndexedDB is non-extractable, so no script can copy it out with the tokens.
  const stored = await page.evaluate(async () => {
    const key = await new Promise<CryptoKey>((resolve, reject) => {
      const open = indexedDB.open('oidc');
      open.onerror = () => reject(open.error ?? new Error('indexedDB'));
      open.onsuccess = () => {
        const read = open.result.transaction('dpop').objectStore('dpop').get('atrium-shell');
        read.onsuccess = () => resolve((read.result as { keys: CryptoKeyPair }).keys.privateKey);
      };
    });
    return {
      inWebStorage: [...Object.keys(window.localStorage), ...Object.keys(window.sessionStorage)].filter(
        (name) => name.startsWith('oidc.user:'),
      ),
      keyExtractable: key.extractable,
      keyExport: await crypto.subtle.exportKey('jwk', key).then(
        () => 'exported',
        (error: unknown) => (error as Error).name,
      ),
    };
  });
  expect((await storedSession(page)).token_type).toBe('DPoP');
  expect(stored).toEqual({
    inWebStorage: [],
    keyExtractable: false,
    keyExport: 'InvalidAccessError',
  });

  await page.reload();
  await expect(page.getByTestId('profile-email')).toHaveText('alice@atrium.test');
  await expect(theme.getByLabel('Dark')).toBeChecked();
  // The preference written through one API process was read back through either: no state lives in a process.
  expect([...upstreams].sort(), 'API calls were spread over both API processes').toHaveLength(2);
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

  // RP-initiated logout: Keycloak ends its session and sends the person back to the shell's home, which sends
  // them on to sign in.
  await signOut(page);
  // With the Keycloak session gone, opening a feature asks for the password again instead of signing in silently.
  await page.goto('/profile');
  await expect(page).toHaveURL(/\/realms\/atrium\/protocol\/openid-connect\/auth/);
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
});
