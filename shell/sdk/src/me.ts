import type { components } from './generated/api';

/**
 * The signed-in person's stored preferences (`Preferences` of the API's OpenAPI document).
 */
export type Preferences = components['schemas']['Preferences'];

/**
 * The person's theme preference. `system` follows the operating system's light/dark setting.
 */
export type ThemePreference = Preferences['theme'];

/**
 * Every accepted {@link ThemePreference}, in the order a picker should offer them. The type check below
 * fails if the API's document adds or drops a theme.
 */
export const THEME_PREFERENCES = ['system', 'light', 'dark'] as const satisfies readonly ThemePreference[];
type Exhaustive<T extends never> = T;
export type _EveryThemeListed = Exhaustive<Exclude<ThemePreference, (typeof THEME_PREFERENCES)[number]>>;

/**
 * Response of `GET /api/me` and `PUT /api/me/preferences` (`Me` of the API's OpenAPI document): who the API
 * thinks the caller is, and their stored preferences. `name` and `email` are `null` when the identity
 * provider has none.
 */
export type MeDocument = components['schemas']['Me'];

/**
 * Tells whether a value is a {@link ThemePreference}.
 */
export function isThemePreference(value: unknown): value is ThemePreference {
  return typeof value === 'string' && (THEME_PREFERENCES as readonly string[]).includes(value);
}
