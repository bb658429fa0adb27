import { expect, test, type Locator, type Page } from '@playwright/test';
import type { components } from '@atrium/sdk/api-types';
import {
  expectNoHorizontalScroll,
  expectUsableScreen,
  LAYOUT_WIDTHS,
  SCREEN_WIDTHS,
} from '@atrium/test-support/accessibility';
import { API_URL, KEYCLOAK_URL } from '@atrium/test-support/addresses';
import { realmAdmin } from '@atrium/test-support/keycloak';
import { allowAccountAccess, LOGIN_PAGE, signInAtKeycloak } from '@atrium/test-support/journeys';

// Each main screen at a phone's and a laptop's width, in the light and the dark theme: no serious or critical
// axe-core violation, no sideways scrolling of the page, and a picture compared with its committed baseline
// (e2e/screenshots/; `npm run test:e2e -- --update-snapshots` draws them again). Then every screen at the
// narrowest and the widest window: no sideways scrolling, and no line of text stretched across a wide monitor.
//
// A picture shows what is the same on every run. Dates and times show in one locale and time zone, and are
// masked; what other journeys add to the shared stack (remotes, versions) is hidden; the
// field health and the audit log, which change with every load and every act, are answered from the API's real
// answers with fixed numbers and entries (typed by the API's contract).

test.use({ locale: 'en-GB', timezoneId: 'UTC' });

const realm = realmAdmin();
test.afterAll(() => realm.removeAll());

/**
 * What other journeys add to the shared stack (remotes, their versions, cards and links): hidden from the pictures,
 * which show the platform's own two remotes whatever ran first.
 */
const ADDED_BY_OTHER_JOURNEYS = [
  ".main-nav li:not(:has(> a[href='/'], > a[href='/profile'], > a[href='/admin']))",
  ".feature-list > li:not(:has(> a[href='/profile'], > a[href='/admin']))",
  ".atrium-card[data-testid^='remote-']:not([data-testid='remote-profile'], [data-testid='remote-admin'])",
  ".atrium-card[data-testid^='rollouts-']:not([data-testid='rollouts-profile'], [data-testid='rollouts-admin'])",
  "tr[data-testid^='version-']:not([data-testid='version-1.0.0'])",
].join(', ');

/**
 * Hides {@link ADDED_BY_OTHER_JOURNEYS} on the page as it is now. From script, element by element: the shell's
 * Content-Security-Policy refuses a style sheet added to the page (toHaveScreenshot's `stylePath`), rightly.
 */
async function hideWhatOtherJourneysAdd(page: Page): Promise<void> {
  await page.evaluate((selector) => {
    for (const element of document.querySelectorAll<HTMLElement>(selector)) {
      element.style.setProperty('display', 'none', 'important');
    }
  }, ADDED_BY_OTHER_JOURNEYS);
}

/** The page as it looks now, compared with its baseline `<name>.png`; `<time>` elements and `mask` masked. */
async function picture(target: Page | Locator, name: string, mask: Locator[] = []): Promise<void> {
  const page = 'page' in target ? target.page() : target;
  await hideWhatOtherJourneysAdd(page);
  // Only what shows: a closed <details>' times have boxes too.
  const options = { mask: [page.locator('time').filter({ visible: true }), ...mask] };
  if ('page' in target) await expect(target).toHaveScreenshot(`${name}.png`, options);
  else await expect(target).toHaveScreenshot(`${name}.png`, { ...options, fullPage: true });
}

/** The person's own lines of dates (sign-ins, sessions, credentials added) in the Security section. */
function securityDates(page: Page): Locator {
  return page
    .getByTestId('security-section')
    .locator(
      '[data-testid="security-sessions"] .atrium-profile__muted, [data-testid="security-activity"] .atrium-profile__muted, [data-testid="security-credentials"] .atrium-profile__muted',
    );
}

/** The person's theme preference is "System", so the emulated colour scheme picks light or dark. */
async function followSystemTheme(page: Page): Promise<void> {
  const theme = page.getByRole('group', { name: 'Theme' });
  if (await theme.getByLabel('System').isChecked()) return;
  await theme.getByLabel('System').check();
  await page.getByRole('button', { name: 'Save preferences' }).click();
  await expect(page.getByRole('status').filter({ hasText: /preferences saved/i })).toBeVisible();
}

type AuditPage = components['schemas']['AuditPage'];
type RemoteHealthDocument = components['schemas']['RemoteHealth'];

const FIRST_MINUTE = Date.parse('2026-11-23T10:00:00Z');

/** A remote's field health over twelve minutes: a stable version and a newer one failing more often. */
function fixedFieldHealth(remote: string): RemoteHealthDocument {
  const points = (failures: readonly number[]) =>
    failures.map((failed, index) => ({
      minute: new Date(FIRST_MINUTE + index * 60_000).toISOString(),
      attempts: 20,
      failures: failed,
      failuresByKind: { download: failed, integrity: 0, timeout: 0, render: 0 },
      loadMsMean: 180,
      renderMsMean: 40,
      poorVitals: failed,
      vitals: 20,
    }));
  return {
    remote,
    since: new Date(FIRST_MINUTE).toISOString(),
    versions: [
      { version: '1.0.0', points: points([0, 1, 0, 0, 2, 0, 1, 0, 0, 0, 1, 0]) },
      { version: '1.1.0', points: points([4, 6, 3, 8, 5, 9, 4, 7, 6, 10, 5, 8]) },
    ],
    canary: null,
  };
}

/** A page of the audit log with one entry of each kind a person reads most. */
function fixedAuditEntries(pageSize: number): AuditPage {
  const at = (minutes: number) => new Date(FIRST_MINUTE + minutes * 60_000).toISOString();
  return {
    pageSize,
    nextCursor: null,
    items: [
      {
        id: 6,
        actor: 'ada',
        actorName: 'Ada Lovelace',
        action: 'remote.rollout.started',
        target: 'profile',
        details: { version: '1.1.0', percent: 10 },
        occurredAt: at(50),
      },
      {
        id: 5,
        actor: 'atrium-deployer',
        actorName: null,
        action: 'remote.version.published',
        target: 'profile@1.1.0',
        details: { version: '1.1.0' },
        occurredAt: at(40),
      },
      {
        id: 4,
        actor: 'ada',
        actorName: 'Ada Lovelace',
        action: 'remote.updated',
        target: 'admin',
        details: { changes: { navOrder: { from: 20, to: 30 } } },
        occurredAt: at(30),
      },
      {
        id: 3,
        actor: 'grace',
        actorName: 'Grace Hopper',
        action: 'keycloak.login_error',
        target: 'grace',
        details: { error: 'invalid_user_credentials' },
        occurredAt: at(20),
      },
      {
        id: 2,
        actor: 'atrium-deployer',
        actorName: null,
        action: 'remote.version.activated',
        target: 'admin@1.0.0',
        details: { version: '1.0.0' },
        occurredAt: at(10),
      },
      {
        id: 1,
        actor: 'atrium-deployer',
        actorName: null,
        action: 'remote.created',
        target: 'admin',
        details: {},
        occurredAt: at(0),
      },
    ],
  };
}

/** Answers the page's field-health and audit-log requests with the API's real answer, fixed numbers inside. */
async function fixTelemetryAndAudit(page: Page): Promise<void> {
  await page.route(/\/api\/admin\/remotes\/([^/]+)\/health\?/, async (route) => {
    const response = await route.fetch();
    const remote = /\/remotes\/([^/]+)\/health/.exec(route.request().url())![1]!;
    await route.fulfill({ response, json: fixedFieldHealth(decodeURIComponent(remote)) });
  });
  await page.route(/\/api\/audit\?/, async (route) => {
    const response = await route.fetch();
    const real = (await response.json()) as AuditPage;
    await route.fulfill({ response, json: fixedAuditEntries(real.pageSize) });
  });
}

/** A person only this picture uses, with fixed names: one session, one sign-in, one password. */
async function pictured(width: number, colorScheme: string) {
  const person = await realm.createPerson({ username: `grace-${width}-${colorScheme}`, prefix: 'grace' });
  await realm.call('PUT', `/users/${person.id}`, { firstName: 'Grace', lastName: 'Hopper' });
  return person;
}

for (const width of SCREEN_WIDTHS) {
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`every main screen at ${width} px in the ${colorScheme} theme`, async ({ page, browser }) => {
      test.setTimeout(180_000);
      await page.setViewportSize({ width, height: 900 });
      await page.emulateMedia({ colorScheme });
      const name = (screen: string) => `${screen}-${width}-${colorScheme}`;
      const screen = async (screen: string, mask: Locator[] = []) => {
        await expectUsableScreen(page, `${screen}@${width}/${colorScheme}`);
        await picture(page, name(screen), mask);
      };

      // The sign-in service cannot be reached as the page opens: the shell says so and retries.
      await page.route(`${KEYCLOAK_URL}/**`, (route) => route.abort('connectionrefused'));
      await page.goto('/');
      await expect(
        page.getByRole('heading', { name: "Can't reach the sign-in service. Retrying…" }),
      ).toBeVisible();
      await screen('outage-sign-in-service');
      await page.unroute(`${KEYCLOAK_URL}/**`);

      await page.goto('/');
      await expect(page).toHaveURL(LOGIN_PAGE);
      await expect(page.getByLabel(/username or email/i)).toBeVisible();
      await screen('sign-in');
      await page.getByRole('link', { name: 'Register' }).click();
      await expect(page.getByRole('heading', { name: 'Register' })).toBeVisible();
      await screen('registration');
      await page.goBack();
      await expect(page.getByLabel(/username or email/i)).toBeVisible();

      await signInAtKeycloak(page, 'ada', 'ada');
      await expect(page.getByTestId('signed-in-user')).toBeVisible();
      // Another journey may have left ada a theme of her own: the pictures follow the emulated one.
      await page.goto('/profile');
      await expect(page.getByTestId('profile-email')).toBeVisible();
      await followSystemTheme(page);
      await page.goto('/');
      await expect(page.getByRole('region', { name: 'Your features' })).toBeVisible();
      await expect(page.locator('.feature-card').first()).toBeVisible();
      await screen('home');

      // The API cannot be reached: the shell says so where the features would be.
      await page.route(`${API_URL}/**`, (route) => route.abort('connectionrefused'));
      await page.reload();
      await expect(
        page.getByRole('heading', { name: 'The list of features could not be loaded' }),
      ).toBeVisible();
      await screen('outage-api');
      await page.unroute(`${API_URL}/**`);

      await fixTelemetryAndAudit(page);
      await page.goto('/admin');
      await expect(page.getByTestId('remote-profile')).toBeVisible();
      await screen('admin-remotes', [page.getByTestId('active-version')]);

      await page.goto('/admin/rollouts');
      await expect(page.getByTestId('rollout-state-profile')).toBeVisible();
      await expect(page.getByTestId('rollouts-profile').getByRole('status')).toHaveCount(0);
      await expect(page.getByTestId('rollouts-profile').locator('.atrium-admin__chart canvas')).toBeVisible();
      await screen('admin-rollouts');

      await page.goto('/admin/audit');
      await expect(page.getByTestId('audit-table')).toBeVisible();
      await screen('admin-audit');

      // The profile and its Security section, as a person of their own (ada's sessions and sign-ins pile up).
      const grace = await pictured(width, colorScheme);
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
      try {
        const own = await context.newPage();
        await own.goto('/profile');
        await signInAtKeycloak(own, grace.username, grace.password);
        await expect(own.getByTestId('profile-email')).toHaveText(grace.email);
        await followSystemTheme(own);
        await allowAccountAccess(own);
        await expectUsableScreen(own, `profile@${width}/${colorScheme}`);
        await picture(own, name('profile'), [securityDates(own)]);
        await picture(own.getByTestId('security-section'), name('security'), [securityDates(own)]);
      } finally {
        await context.close();
      }
    });
  }
}

test('every main screen fits windows from the narrowest phone to a wide monitor', async ({ page }) => {
  const screens: [string, () => Promise<void>][] = [
    ['home', () => expect(page.getByRole('region', { name: 'Your features' })).toBeVisible()],
    ['profile', () => expect(page.getByTestId('security-section')).toBeVisible()],
    ['admin', () => expect(page.getByTestId('remote-profile')).toBeVisible()],
    ['admin/rollouts', () => expect(page.getByTestId('rollout-state-profile')).toBeVisible()],
    ['admin/audit', () => expect(page.getByTestId('audit-table')).toBeVisible()],
  ];
  await page.goto('/');
  await expect(page.getByLabel(/username or email/i)).toBeVisible();
  for (const width of LAYOUT_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await expectNoHorizontalScroll(page, `sign-in@${width}`);
  }
  await signInAtKeycloak(page, 'ada', 'ada');
  await expect(page.getByTestId('signed-in-user')).toBeVisible();
  for (const [path, shown] of screens) {
    await page.goto(`/${path === 'home' ? '' : path}`);
    await shown();
    for (const width of LAYOUT_WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await expectNoHorizontalScroll(page, `${path}@${width}`);
    }
    // On a wide monitor the page keeps a readable measure rather than stretching text across the window.
    const main = await page.getByRole('main').boundingBox();
    expect(main?.width, `${path}'s content at 1920 px`).toBeLessThanOrEqual(1024);
  }
});
