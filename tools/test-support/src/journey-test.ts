// The browser journeys' `test`: Playwright's, with every screen the journey's pages show held to a check. A
// journey fails when one of its pages showed a screen (screen-ledger.ts: a shell page or one of the realm's pages
// at Keycloak) that it never checked with axe-core (expectAccessible, expectAtriumTheme).
import { expect, test as base, type Page } from '@playwright/test';
import { recordScreens, uncheckedScreens, type Ledger } from './screen-ledger.ts';

export { expect };

export const test = base.extend<{ everyScreenChecked: void }>({
  everyScreenChecked: [
    async ({ context }, use, testInfo) => {
      // The pages of the test's own context, the `page` fixture's and any it opens. (A context the journey makes
      // itself, browser.newContext(), is the journey's to check: its screens are not recorded.)
      const ledgers: Ledger[] = [];
      const record = (page: Page) => ledgers.push(recordScreens(page));
      for (const page of context.pages()) record(page);
      context.on('page', record);
      await use();
      context.off('page', record);
      // A journey that failed already says why; a missed check would only add noise to it.
      if (testInfo.status !== testInfo.expectedStatus) return;
      const unchecked = [...new Set(ledgers.flatMap(uncheckedScreens))];
      expect(unchecked, 'screens the journey showed but never checked with expectAccessible').toEqual([]);
    },
    { auto: true },
  ],
});
