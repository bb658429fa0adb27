// `@atrium/sdk/testing`: renders a feature as the shell would, for a remote's unit tests (vitest + happy-dom +
// @testing-library/react, msw: a remote has them as devDependencies). Never imported by production code.
import {
  AtriumProvider,
  createApiClient,
  type ApiClient,
  type AtriumContextValue,
  type AtriumUser,
  type ThemePreference,
} from '@atrium/sdk';
import { render, type RenderResult } from '@testing-library/react';
import { useMemo, useState, type ReactNode } from 'react';

export { setupApiServer } from './api-server';

/** The person {@link renderFeature} signs in unless told otherwise. */
export const TEST_USER: AtriumUser = {
  sub: 'f3c1a2b4-0000-4000-8000-00000000a11c',
  username: 'alice',
  name: 'Alice Liddell',
  email: 'alice@atrium.test',
  roles: ['atrium-user'],
};

/**
 * An {@link ApiClient} for tests: calls `baseUrl` (default: the test page's origin, where msw handlers
 * answer without CORS) with placeholder DPoP headers. The shell's real proofs are tested in the shell.
 */
export function testApiClient(baseUrl: string = window.location.origin): ApiClient {
  return createApiClient({
    baseUrl,
    authorize: () => Promise.resolve({ authorization: 'DPoP test-access-token', dpop: 'test.dpop.proof' }),
    renewAuthorization: () => Promise.resolve(),
  });
}

/** Options of {@link renderFeature}. */
export interface RenderFeatureOptions {
  /** Who is signed in: fields over {@link TEST_USER}. */
  readonly user?: Partial<AtriumUser>;
  /** The signed-in person's roles (shorthand for `user.roles`). */
  readonly roles?: readonly string[];
  /** The API client, or the base URL of one from {@link testApiClient}. */
  readonly api?: ApiClient | string;
  /**
   * The page's address at the start, e.g. `/admin/audit` or `/admin/audit?actor=ada` (default `/`): the
   * path is `useLocationPath()`, the whole address `window.location`, as in the shell.
   */
  readonly location?: string;
  /** The theme applied at the start (default `system`). */
  readonly theme?: ThemePreference;
}

/** What {@link renderFeature} returns: Testing Library's render result and what the feature asked the shell. */
export interface RenderFeatureResult extends RenderResult {
  /** The user and API client the feature got. */
  readonly user: AtriumUser;
  readonly api: ApiClient;
  /** Every `navigate(to)` call, in order; the location and the page's address follow them as in the shell. */
  readonly navigations: string[];
  /** Every `setTheme(theme)` call, in order. */
  readonly themes: ThemePreference[];
  /** How many times the feature signed the person out. */
  readonly signOuts: () => number;
}

/** The path of an in-app address: what the shell's router matches, without the query string or fragment. */
const pathOf = (address: string): string => address.replace(/[?#].*$/, '') || '/';

/**
 * Renders a feature (or any part of one) inside a signed-in {@link AtriumProvider}, as the shell mounts it:
 * `useAtrium()`, `useApi()`, `Link` and `useNavigate()` work, and navigating changes `useLocationPath()` and,
 * through the history, `window.location` (its query string included).
 *
 * ```tsx
 * const view = renderFeature(<Feature basePath="/admin" />, { roles: ['atrium-admin'], location: '/admin' });
 * fireEvent.click(screen.getByRole('link', { name: 'Audit log' }));
 * expect(view.navigations).toEqual(['/admin/audit']);
 * ```
 */
export function renderFeature(ui: ReactNode, options: RenderFeatureOptions = {}): RenderFeatureResult {
  const user: AtriumUser = {
    ...TEST_USER,
    ...options.user,
    ...(options.roles ? { roles: options.roles } : {}),
  };
  const api = typeof options.api === 'object' ? options.api : testApiClient(options.api);
  const navigations: string[] = [];
  const themes: ThemePreference[] = [];
  let signOuts = 0;
  const start = options.location ?? '/';
  window.history.replaceState(null, '', start);

  function TestShell({ children }: { children?: ReactNode }) {
    const [location, setLocation] = useState(pathOf(start));
    const [theme, setThemeState] = useState<ThemePreference>(options.theme ?? 'system');
    const context = useMemo<AtriumContextValue>(
      () => ({
        user,
        api,
        theme,
        setTheme: (next) => {
          themes.push(next);
          setThemeState(next);
        },
        signOut: () => {
          signOuts += 1;
          return Promise.resolve();
        },
        navigate: (to, navigation) => {
          navigations.push(to);
          window.history[navigation?.replace ? 'replaceState' : 'pushState'](null, '', to);
          setLocation(pathOf(to));
        },
        location,
      }),
      [location, theme],
    );
    return <AtriumProvider value={context}>{children}</AtriumProvider>;
  }

  const result = render(ui, { wrapper: TestShell });
  return { ...result, user, api, navigations, themes, signOuts: () => signOuts };
}
