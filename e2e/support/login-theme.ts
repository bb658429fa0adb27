import { expect, type Page } from '@playwright/test';
import type { ReceivedMail } from '../../infra/dev/mail-inbox.ts';

/**
 * The page is one of Keycloak's login pages in Atrium's theme (infra/keycloak/themes/atrium): the theme's
 * stylesheet is linked from its own resource path, it has loaded and applied (the brand line carries the
 * Atrium mark it draws), and the mark itself is served. Fails on Keycloak's stock pages.
 */
export async function expectAtriumTheme(page: Page): Promise<void> {
  await expect(page.locator('link[rel="stylesheet"][href*="/login/atrium/css/atrium.css"]')).toBeAttached();
  await expect(page.locator('body')).toHaveClass(/\batrium-login\b/);
  const brand = page.locator('#kc-header-wrapper');
  await expect(brand).toBeVisible();
  await expect(brand).toHaveText('Atrium');
  const mark = () => brand.evaluate((element) => getComputedStyle(element, '::before').backgroundImage);
  await expect.poll(mark).toMatch(/\/login\/atrium\/img\/atrium-logo\.svg/);
  const markUrl = /url\("?([^")]+)"?\)/.exec(await mark())?.[1] ?? '';
  const served = await page.request.get(markUrl);
  expect(served.ok(), markUrl).toBe(true);
  expect(served.headers()['content-type']).toContain('image/svg+xml');
}

/**
 * A mail Keycloak sent in Atrium's email theme: its HTML part framed by the theme's layout (the realm's name
 * above Keycloak's text, the accent line on top), its text still Keycloak's.
 */
export function expectAtriumMail(mail: ReceivedMail): void {
  expect(mail.html ?? '').toMatch(/border-top:4px solid #0b5fff/);
  expect(mail.html ?? '').toMatch(/<p style="[^"]*">Atrium<\/p>/);
}
