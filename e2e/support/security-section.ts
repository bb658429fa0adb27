import { expect, type Page } from '@playwright/test';

const SHELL = 'http://localhost:4000';

/**
 * What a person does the first time the profile's Security section asks (and again once its 30 minutes are up):
 * "Continue at the sign-in service" sends the browser to Keycloak for the API's own authorization request, which
 * the person's session there answers without a page, to the shell's /auth/account-access and back to the same
 * page. Then the lists that need the person's own token at Keycloak show.
 */
export async function allowAccountAccess(page: Page, path = '/profile'): Promise<void> {
  const button = page.getByTestId('security-continue-access').first();
  await expect(button).toBeVisible();
  await Promise.all([page.waitForURL(/\/auth\/account-access\?/, { waitUntil: 'commit' }), button.click()]);
  await page.waitForURL(`${SHELL}${path}`);
  await expect(page.getByTestId('security-credentials')).toBeVisible();
  await expect(page.getByTestId('security-sessions')).toBeVisible();
}
