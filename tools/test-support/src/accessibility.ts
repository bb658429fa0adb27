// What every screen of the browser journeys is held to: no serious or critical axe-core violation of WCAG 2.2
// A/AA, and no sideways scrolling of the page from the narrowest phone's width to a wide monitor's.
import AxeBuilder from '@axe-core/playwright';
import { expect, type Locator, type Page } from '@playwright/test';
import { markChecked } from './screen-ledger.ts';

/** The window widths each screen is checked and pictured at (e2e/screens.e2e.ts): a phone's and a laptop's. */
export const SCREEN_WIDTHS = [375, 1280] as const;

/** The window widths no screen may scroll sideways at: the narrowest phone's, those above and a wide monitor's. */
export const LAYOUT_WIDTHS = [360, ...SCREEN_WIDTHS, 1920] as const;

/** The impacts that fail a screen; moderate and minor ones are counted and printed, not failed on. */
const FAILING_IMPACTS: ReadonlySet<string> = new Set(['serious', 'critical']);

/** How many violations of each impact axe found on a screen. */
export type AxeSummary = Readonly<Record<'critical' | 'serious' | 'moderate' | 'minor', number>>;

/**
 * Runs axe-core (WCAG 2.0–2.2 A and AA rules) on the page as it is now and fails, naming each rule and the
 * elements it found, on any serious or critical violation. Prints one line per screen,
 * `axe screen=<name> critical=… serious=… moderate=… minor=…`, and returns the same counts. Call it once the
 * screen is settled (what the journey waits for shows), never while the journey acts on the page; the screen
 * then counts as checked for the journey's `test` (journey-test.ts).
 */
export async function expectAccessible(page: Page, screen: string): Promise<AxeSummary> {
  const { violations } = await new AxeBuilder({ page })
    .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'])
    .analyze();
  const count = (impact: string) => violations.filter((violation) => violation.impact === impact).length;
  const summary = {
    critical: count('critical'),
    serious: count('serious'),
    moderate: count('moderate'),
    minor: count('minor'),
  };
  const rules = violations.map((violation) => `${violation.impact ?? 'unknown'}:${violation.id}`).join(',');
  console.log(
    `axe screen=${screen} critical=${summary.critical} serious=${summary.serious} moderate=${summary.moderate} minor=${summary.minor}${rules ? ` rules=${rules}` : ''}`,
  );
  const failing = violations
    .filter((violation) => FAILING_IMPACTS.has(violation.impact ?? ''))
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes
          .slice(0, 5)
          .map((node) => node.target.join(' '))
          .join(' | ')}`,
    );
  expect(failing, `serious or critical accessibility violations on ${screen}`).toEqual([]);
  markChecked(page);
  return summary;
}

/**
 * The page does not scroll sideways: the document is no wider than the window. On failure, names the elements
 * that reach past the window's right edge (the deepest first), so the culprit is in the message.
 */
export async function expectNoHorizontalScroll(page: Page, screen: string): Promise<void> {
  const measured = await page.evaluate(() => {
    const width = window.innerWidth;
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}${
        element.classList.length ? `.${[...element.classList].join('.')}` : ''
      }`;
    const wide = [...document.body.querySelectorAll('*')]
      .filter((element) => element.getBoundingClientRect().right > width + 1)
      .reverse()
      .slice(0, 5)
      .map((element) => `${name(element)} (${Math.round(element.getBoundingClientRect().right)} px)`);
    return { scrollWidth: document.scrollingElement?.scrollWidth ?? 0, innerWidth: width, wide };
  });
  expect(
    measured.scrollWidth,
    `${screen} is ${measured.scrollWidth} px wide in a ${measured.innerWidth} px window: ${measured.wide.join(', ')}`,
  ).toBeLessThanOrEqual(measured.innerWidth);
}

/** Both checks on the screen the page shows now. */
export async function expectUsableScreen(page: Page, screen: string): Promise<AxeSummary> {
  await expectNoHorizontalScroll(page, screen);
  return expectAccessible(page, screen);
}

/**
 * Moves keyboard focus with Tab (or Shift+Tab, `back`) at most `presses` times until it is on `target`, as a
 * person without a mouse does; fails if focus never gets there.
 */
export async function tabTo(
  page: Page,
  target: Locator,
  { presses = 40, back = false }: { presses?: number; back?: boolean } = {},
): Promise<void> {
  for (let press = 0; press < presses; press += 1) {
    if (await target.evaluate((element) => element === document.activeElement).catch(() => false)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  await expect(target, `Tab never reached it in ${presses} presses`).toBeFocused({ timeout: 1 });
}
