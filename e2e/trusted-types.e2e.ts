import type { Page } from '@playwright/test';
import { expect, test } from '@atrium/test-support/journey-test';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { releaseStoreDir } from '@atrium/test-support/fixture-remotes';
import { expectAtriumTheme, openAs } from '@atrium/test-support/journeys';
import { API_URL, KEYCLOAK_URL, RELEASE_STORE_URL } from '@atrium/test-support/addresses';
import { expectAccessible } from '@atrium/test-support/accessibility';

const MAIL_INBOX = 'http://localhost:1080';

// A script planted in the release store by someone who can write one file there: no release lists it.
const PLANTED_DIR = join(releaseStoreDir(), 'pwned', '1.0.0');
const planted = `${RELEASE_STORE_URL}/pwned/1.0.0/pwn.js`;
// Scripts the API really serves (its OpenAPI browser): with `http://localhost:*` as a script source they ran.
const apiScript = `${API_URL}/api/docs/swagger-ui-init.js`;

test.beforeAll(() => {
  mkdirSync(PLANTED_DIR, { recursive: true });
  writeFileSync(join(PLANTED_DIR, 'pwn.js'), "window.__pwned = 'the release store';\nexport {};\n");
});
test.afterAll(() => rmSync(join(releaseStoreDir(), 'pwned'), { recursive: true, force: true }));

/**
 * Every answer the page gets from one of `urls` from now on: a request that reached its server. (A request the
 * CSP blocks is still reported as a request, failed with net::ERR_BLOCKED_BY_CSP, but never left the browser.)
 */
function answersFrom(page: Page, ...urls: string[]): string[] {
  const seen: string[] = [];
  page.on('response', (response) => {
    if (urls.some((url) => response.url().startsWith(url))) seen.push(response.url());
  });
  return seen;
}

/** The page's CSP and Trusted Types violations, as `<directive> <blocked URI>`, from the first document on. */
async function violationsOf(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener('securitypolicyviolation', (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  return () => page.evaluate(() => (window as unknown as { violations: string[] }).violations);
}

test("the shell's policy names only itself, the release store and the dev servers as script sources, and requires Trusted Types", async ({
  page,
}) => {
  const response = await page.goto('/');
  const policy = Object.fromEntries(
    (response?.headers()['content-security-policy'] ?? '').split('; ').map((directive) => {
      const [name = '', ...sources] = directive.split(' ');
      return [name, sources];
    }),
  );
  // The local stack's dev-override origins are each remote's own dev server, never http://localhost:*.
  expect(policy['script-src']).toEqual([
    "'self'",
    RELEASE_STORE_URL,
    'http://localhost:5001',
    'http://localhost:5002',
  ]);
  expect(policy['require-trusted-types-for']).toEqual(["'script'"]);
  expect(policy['trusted-types']).toEqual(['atrium-remote-loader', 'default']);
  // Signed out, the shell sends the browser on to sign in: the journey's page ends on the sign-in page.
  await expect(page.getByLabel('Password', { exact: true })).toBeVisible();
  await expectAtriumTheme(page, 'keycloak-sign-in');
});

test('a script URL injected into the page is refused by Trusted Types and never runs; the remotes keep loading', async ({
  page,
}) => {
  const violations = await violationsOf(page);
  await openAs(page, '/profile', 'ada');
  await expect(page.getByTestId('profile-email')).toHaveText('ada@atrium.test');
  // Loading the shell and a remote took no violation: the loader's elements and the runtimes' chunks passed.
  expect(await violations()).toEqual([]);
  // Keycloak's own pages are left out: the shell renews its tokens there meanwhile.
  const keycloakScript = `${KEYCLOAK_URL}/realms/atrium/x.js`;
  const attacked = answersFrom(page, planted, apiScript, keycloakScript, MAIL_INBOX);

  const outcomes = await page.evaluate(
    async (urls) => {
      const results: string[] = [];
      for (const url of urls) {
        try {
          const script = document.createElement('script');
          script.src = url;
          document.head.append(script);
          results.push(`${url}: assigned`);
        } catch (error) {
          results.push(`${url}: ${(error as Error).name}`);
        }
      }
      try {
        document.createElement('script').setAttribute('src', urls[0]!);
        results.push('setAttribute: assigned');
      } catch (error) {
        results.push(`setAttribute: ${(error as Error).name}`);
      }
      try {
        new Worker(urls[0]!);
        results.push('worker: created');
      } catch (error) {
        results.push(`worker: ${(error as Error).name}`);
      }
      // A policy of its own, or one of the shell's names again: refused by the CSP's trusted-types.
      const factory = (
        window as unknown as { trustedTypes: { createPolicy(name: string, rules: object): unknown } }
      ).trustedTypes;
      for (const name of ['attacker', 'atrium-remote-loader', 'default']) {
        try {
          factory.createPolicy(name, { createScriptURL: (input: string) => input });
          results.push(`policy ${name}: created`);
        } catch (error) {
          results.push(`policy ${name}: ${(error as Error).name}`);
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return results;
    },
    [planted, apiScript, `${MAIL_INBOX}/`],
  );
  expect(outcomes).toEqual([
    `${planted}: TypeError`,
    `${apiScript}: TypeError`,
    `${MAIL_INBOX}/: TypeError`,
    'setAttribute: TypeError',
    'worker: TypeError',
    'policy attacker: TypeError',
    'policy atrium-remote-loader: TypeError',
    'policy default: TypeError',
  ]);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  expect(attacked).toEqual([]);
  expect(await violations()).toEqual(
    expect.arrayContaining([
      'require-trusted-types-for trusted-types-sink',
      'trusted-types trusted-types-policy',
    ]),
  );

  // import() is no Trusted Types sink: the script sources stop it for the API, Keycloak and the mail inbox.
  const imports = await page.evaluate(
    (urls) =>
      Promise.all(
        urls.map((url) =>
          import(/* webpackIgnore: true */ url).then(
            () => `${url}: ran`,
            () => `${url}: refused`,
          ),
        ),
      ),
    [apiScript, keycloakScript, `${MAIL_INBOX}/x.js`],
  );
  expect(imports).toEqual([
    `${apiScript}: refused`,
    `${keycloakScript}: refused`,
    `${MAIL_INBOX}/x.js: refused`,
  ]);
  expect(attacked).toEqual([]);
  expect(await violations()).toEqual(expect.arrayContaining([`script-src-elem ${apiScript}`]));

  // The person keeps working: the other remote loads, and so does this one again.
  await page.goto('/admin');
  await expect(page.getByTestId('remote-profile')).toBeVisible();
  await expectAccessible(page, 'admin-remotes');
  await page.goto('/profile');
  await expect(page.getByTestId('profile-email')).toHaveText('ada@atrium.test');
  expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
  await expectAccessible(page, 'profile');
});
