// The browser journeys' steps in a real Chromium (Playwright): Keycloak's pages as a person goes through them
// (sign-in, self-registration, the verification mail), Atrium's login and mail theme, and the profile's
// Security section asking for access to the person's own account at Keycloak.
import { randomBytes } from 'node:crypto';
import { expect, type Page } from '@playwright/test';
import { expectAccessible } from './accessibility.ts';
import { ISSUER, SHELL_URL } from './addresses.ts';
import { linkIn, type ReceivedMail, waitForMail } from './mail.ts';

/** Keycloak's authorization endpoint, where its login page is. */
export const LOGIN_PAGE = /\/realms\/atrium\/protocol\/openid-connect\/auth/;

/**
 * Completes Keycloak's login form; the page must already be on it. The form is checked with axe-core first
 * (`keycloak-sign-in`), once it shows.
 */
export async function signInAtKeycloak(page: Page, username: string, password: string): Promise<void> {
  await expect(page).toHaveURL(LOGIN_PAGE);
  await expect(page.getByLabel(/username or email/i)).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-sign-in');
  await page.getByLabel(/username or email/i).fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: /sign in/i }).click();
}

/**
 * Signs out with the shell's button and waits until the shell is back at `/`, signed out. From there the shell
 * sends the browser to Keycloak's sign-in by itself: a test that opens a page now races that redirect.
 */
export async function signOutToShell(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL((url) => url.origin === SHELL_URL && url.pathname === '/', { waitUntil: 'commit' });
}

/** Signs out and waits until the signed-out shell has sent the browser on to Keycloak's sign-in page. */
export async function signOut(page: Page): Promise<void> {
  await signOutToShell(page);
  await expect(page).toHaveURL(LOGIN_PAGE);
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
}

/** Opens a shell path as a signed-out person and signs in as `username` (password = username). */
export async function openAs(page: Page, path: string, username: string): Promise<void> {
  await page.goto(path);
  await signInAtKeycloak(page, username, username);
  await expect(page.getByTestId('signed-in-user')).toBeVisible();
}

/**
 * The page is one of Keycloak's login pages in Atrium's theme (infra/keycloak/themes/atrium): the theme's
 * stylesheet is linked from its own resource path, it has loaded and applied (the brand line carries the
 * Atrium mark it draws), and the mark itself is served. Fails on Keycloak's stock pages. Then the page, named
 * `screen` in the printed summary, is checked with axe-core ({@link expectAccessible}): call it once the page
 * shows what the journey waits for.
 */
export async function expectAtriumTheme(page: Page, screen: string): Promise<void> {
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
  await expectAccessible(page, screen);
}

/**
 * A mail Keycloak sent in Atrium's email theme: its HTML part framed by the theme's layout (the realm's name
 * above Keycloak's text, the accent line on top), its text still Keycloak's.
 */
export function expectAtriumMail(mail: ReceivedMail): void {
  expect(mail.html ?? '').toMatch(/border-top:4px solid #0b5fff/);
  expect(mail.html ?? '').toMatch(/<p style="[^"]*">Atrium<\/p>/);
}

/*
 * Self-registration as anyone can do it: the shell's sign-in page, Keycloak's registration form, the
 * verification mail in the stack's real MailDev, the password chosen last.
 */

/** Keycloak's mails, read from the stack's real MailDev through its REST API (see e2e/global-setup.ts). */
export function inbox(): string {
  const url = process.env.ATRIUM_MAIL_INBOX_URL;
  if (!url)
    throw new Error('ATRIUM_MAIL_INBOX_URL is not set: run the journeys through e2e/global-setup.ts.');
  return url;
}

export interface Person {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  password: string;
}

/** A person no earlier run has seen, with a password long enough for any sensible policy. */
export function newPerson(): Person {
  const id = randomBytes(5).toString('hex');
  return {
    username: `grace-${id}`,
    email: `grace-${id}@atrium.test`,
    firstName: 'Grace',
    lastName: `Hopper ${id}`,
    password: `Cobol${randomBytes(9).toString('hex')}1959`,
  };
}

/** From the shell's sign-in, through Keycloak's registration page, to "check your e-mail". */
export async function register(page: Page, person: Person): Promise<void> {
  await page.goto('/profile');
  await expect(page).toHaveURL(LOGIN_PAGE);
  await expect(page.getByRole('link', { name: 'Register' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-sign-in');
  await page.getByRole('link', { name: 'Register' }).click();
  await expect(page.getByRole('heading', { name: 'Register' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-registration');
  const field = (name: string) => page.getByRole('textbox', { name, exact: true });
  await field('Username').fill(person.username);
  await field('Email').fill(person.email);
  await field('First name').fill(person.firstName);
  await field('Last name').fill(person.lastName);
  // With e-mail verification on, Keycloak asks for no password here: it is chosen only once the address is
  // proven, so whoever signs up with someone else's address never holds a working password for it.
  await expect(page.locator('input[type="password"]')).toHaveCount(0);
  await page.getByRole('button', { name: 'Register' }).click();
  await expect(page.getByRole('heading', { name: 'Email verification' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-email-verification');
}

/** Opens the link of the "Verify email" mail in the same browser, then chooses the password. */
export async function verifyFromInbox(page: Page, person: Person): Promise<void> {
  const mail = await waitForMail(inbox(), person.email, { subject: /^Verify email$/ });
  expect(mail.from[0]?.address).toBe('no-reply@atrium.test');
  expectAtriumMail(mail);
  await page.goto(linkIn(mail, `${ISSUER}/`));
  await choosePassword(page, person.password);
}

/** Keycloak's "Update password" page, after a verification or a reset link. */
export async function choosePassword(page: Page, password: string): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Update password' })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-update-password');
  await page.getByLabel('New Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Submit' }).click();
}

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
  await page.waitForURL(`${SHELL_URL}${path}`);
  await expect(page.getByTestId('security-credentials')).toBeVisible();
  await expect(page.getByTestId('security-sessions')).toBeVisible();
}
