import { createContext, useContext, type ReactNode } from 'react';
import type { ApiClient } from './api-client';
import type { AtriumUser } from './contract';
import type { ThemePreference } from './me';

/**
 * Options for {@link AtriumNavigate}.
 */
export interface NavigateOptions {
  /** Replace the current history entry instead of adding one (e.g. after a redirect-like step). */
  readonly replace?: boolean;
}

/**
 * Moves the shell to an absolute in-app path such as `/profile` or `/admin/audit`. The shell owns the
 * router, so remotes navigate through this instead of bundling a router of their own.
 */
export type AtriumNavigate = (to: string, options?: NavigateOptions) => void;

/**
 * What the shell gives every remote. Obtain it with {@link useAtrium}.
 */
export interface AtriumContextValue {
  /** The signed-in person. Remotes are only mounted once someone is signed in. */
  readonly user: AtriumUser;
  /**
   * Authenticated client for the Atrium API (base URL from the shell's run-time config). It is how a remote
   * reaches the API: the shell keeps the tokens and the key they are bound to, and hands remotes no token to
   * pass around, log or leak.
   */
  readonly api: ApiClient;
  /** The theme currently applied to the document. */
  readonly theme: ThemePreference;
  /**
   * Applies a theme to the shell and every remote at once. Call it after the person saved a new
   * preference; it does not persist anything by itself.
   */
  readonly setTheme: (theme: ThemePreference) => void;
  /** Ends the session at the identity provider and returns to the shell's start page. */
  readonly signOut: () => Promise<void>;
  /** Moves the shell to an absolute in-app path; see {@link useNavigate} and `Link`. */
  readonly navigate: AtriumNavigate;
  /** The current in-app path, e.g. `/profile`. */
  readonly location: string;
}

/**
 * The React context carrying {@link AtriumContextValue}. It only works across host and remotes because
 * `@atrium/sdk`, `react` and `react-dom` are shared Module Federation singletons: a second copy of this
 * module would create a second, empty context.
 */
export const AtriumContext = createContext<AtriumContextValue | null>(null);

/**
 * Props of {@link AtriumProvider}.
 */
export interface AtriumProviderProps {
  readonly value: AtriumContextValue;
  readonly children?: ReactNode;
}

/**
 * Provides the Atrium context. Rendered by the shell around mounted remotes (and by tests).
 */
export function AtriumProvider({ value, children }: AtriumProviderProps) {
  return <AtriumContext value={value}>{children}</AtriumContext>;
}

/**
 * Returns the shell's context: the signed-in user, the API client, navigation and theme control.
 *
 * @throws Error when rendered outside the shell (no {@link AtriumProvider} above it).
 */
export function useAtrium(): AtriumContextValue {
  const value = useContext(AtriumContext);
  if (value === null) {
    throw new Error(
      'useAtrium() was called outside <AtriumProvider>. Remotes must be rendered by the Atrium shell, ' +
        'and @atrium/sdk must be a shared singleton in the Module Federation config.',
    );
  }
  return value;
}

/**
 * Returns the shell's authenticated {@link ApiClient}.
 */
export function useApi(): ApiClient {
  return useAtrium().api;
}
