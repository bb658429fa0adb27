/**
 * The person's theme preference. `system` follows the operating system's light/dark setting.
 */
export type ThemePreference = 'system' | 'light' | 'dark';

/**
 * Every accepted {@link ThemePreference}, in the order a picker should offer them.
 */
export const THEME_PREFERENCES: readonly ThemePreference[] = ['system', 'light', 'dark'];

/**
 * The signed-in person's stored preferences.
 */
export interface Preferences {
  /** Colour theme for the shell and every remote. */
  readonly theme: ThemePreference;
}

/**
 * Response of `GET /api/me` and `PUT /api/me/preferences`: who the API thinks the caller is, and their
 * stored preferences.
 */
export interface MeDocument {
  readonly sub: string;
  readonly username: string;
  readonly name: string;
  readonly email: string;
  readonly roles: readonly string[];
  readonly preferences: Preferences;
}

/**
 * Tells whether a value is a {@link ThemePreference}.
 */
export function isThemePreference(value: unknown): value is ThemePreference {
  return typeof value === 'string' && (THEME_PREFERENCES as readonly string[]).includes(value);
}
