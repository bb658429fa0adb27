import { expect, type Page } from '@playwright/test';

/** Completes Keycloak's login form; the page must already be on it. */
export async function signInAtKeycloak(page: Page, username: string, password: string): Promise<void> {
  await expect(page).toHaveURL(/\/realms\/atrium\/protocol\/openid-connect\/auth/);
  await page.getByLabel(/username or email/i).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: /sign in/i }).click();
}

/** Opens a shell path as a signed-out person and signs in as `username` (password = username). */
export async function openAs(page: Page, path: string, username: string): Promise<void> {
  await page.goto(path);
  await signInAtKeycloak(page, username, username);
  await expect(page.getByTestId('signed-in-user')).toBeVisible();
}
