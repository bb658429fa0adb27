import type { ThemePreference } from './me';

/**
 * The attribute on `<html>` that carries the applied theme. Shell and remote styles key their CSS
 * variables off it (`:root[data-theme='dark'] { ... }`); `system` leaves the choice to
 * `prefers-color-scheme`.
 */
export const THEME_ATTRIBUTE = 'data-theme';

/**
 * Applies a theme to the whole document, so the shell and every mounted remote change together.
 * Remotes normally call `setTheme` from {@link useAtrium} instead, which also updates the shell's state.
 */
export function applyTheme(theme: ThemePreference, root: HTMLElement = document.documentElement): void {
  root.setAttribute(THEME_ATTRIBUTE, theme);
}
