// Which screens a browser journey's pages showed, and which of them it checked with axe-core
// (expectAccessible): a journey that shows a screen it never checked fails (journey-test.ts).
import type { Page } from '@playwright/test';
import { ISSUER, SHELL_URL } from './addresses.ts';

/** The shell's paths that only pass a sign-in answer on: no person reads them. */
const SHELL_HANDOFFS: ReadonlySet<string> = new Set(['/auth/callback', '/auth/account-access']);

/**
 * The screen an address shows, named by its origin and path (a query or fragment is the same screen with other
 * data): the shell's pages and the realm's pages at Keycloak. Any other address (the API, the release store,
 * a dev server, about:blank) and the shell's hand-offs of a sign-in are no screen: `null`.
 */
export function screenOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.origin === SHELL_URL) return SHELL_HANDOFFS.has(parsed.pathname) ? null : url.split(/[?#]/)[0]!;
  if (`${parsed.origin}${parsed.pathname}`.startsWith(`${ISSUER}/`))
    return `${parsed.origin}${parsed.pathname}`;
  return null;
}

/** One page's visits, in the order its main frame got to them, and the screens checked on it. */
export interface Ledger {
  readonly visits: string[];
  readonly checked: Set<string>;
}

const ledgers = new WeakMap<Page, Ledger>();

/**
 * Starts recording the screens `page` shows: every navigation of its main frame, a route change of the shell's
 * router included (Playwright reports those as navigations within the document).
 */
export function recordScreens(page: Page): Ledger {
  const existing = ledgers.get(page);
  if (existing) return existing;
  const ledger: Ledger = { visits: [], checked: new Set() };
  ledgers.set(page, ledger);
  const visit = (url: string) => {
    const screen = screenOf(url);
    if (screen !== null) ledger.visits.push(screen);
  };
  visit(page.url());
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) visit(frame.url());
  });
  return ledger;
}

/** The screen the page shows now was checked (expectAccessible calls this). */
export function markChecked(page: Page): void {
  const screen = screenOf(page.url());
  if (screen !== null) ledgers.get(page)?.checked.add(screen);
}

/** Keycloak's authorization endpoint: where a signed-out shell sends the browser to sign in. */
const SIGN_IN = `${ISSUER}/protocol/openid-connect/auth`;

/**
 * The screens the ledger's page showed to a person and that were never checked, each once. A shell page the
 * browser left straight for Keycloak's sign-in counts as gone through, not shown: the signed-out shell sends the
 * browser on by itself (after a sign-out, or when a journey opens a page before signing in).
 */
export function uncheckedScreens({ visits, checked }: Ledger): string[] {
  const shown = visits.filter(
    (screen, index) => !(screen.startsWith(`${SHELL_URL}/`) && visits[index + 1] === SIGN_IN),
  );
  return [...new Set(shown)].filter((screen) => !checked.has(screen));
}
