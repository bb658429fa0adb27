import { randomBytes } from 'node:crypto';
import { expect, type Page } from '@playwright/test';
import { linkIn, waitForMail } from '../../infra/dev/mail-inbox.ts';
import { expectAtriumMail, expectAtriumTheme } from './login-theme.ts';

/*
 * Self-registration as anyone can do it: the shell's sign-in page, Keycloak's registration form, the
 * verification mail in the stack's real MailDev, the password chosen last.
 */

const REALM = 'http://localhost:8080/realms/atrium/';
const LOGIN_PAGE = /\/realms\/atrium\/protocol\/openid-connect\/auth/;

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
  await page.getByRole('link', { name: 'Register' }).click();
  await expect(page.getByRole('heading', { name: 'Register' })).toBeVisible();
  await expectAtriumTheme(page);
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
  await expectAtriumTheme(page);
}

/** Opens the link of the "Verify email" mail in the same browser, then chooses the password. */
export async function verifyFromInbox(page: Page, person: Person): Promise<void> {
  const mail = await waitForMail(inbox(), person.email, { subject: /^Verify email$/ });
  expect(mail.from[0]?.address).toBe('no-reply@atrium.test');
  expectAtriumMail(mail);
  await page.goto(linkIn(mail, REALM));
  await choosePassword(page, person.password);
}

/** Keycloak's "Update password" page, after a verification or a reset link. */
export async function choosePassword(page: Page, password: string): Promise<void> {
  await expect(page.getByRole('heading', { name: 'Update password' })).toBeVisible();
  await expectAtriumTheme(page);
  await page.getByLabel('New Password', { exact: true }).fill(password);
  await page.getByLabel('Confirm password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Submit' }).click();
}
