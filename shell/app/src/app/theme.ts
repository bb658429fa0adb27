import {
  applyTheme,
  isThemePreference,
  type ApiClient,
  type MeDocument,
  type ThemePreference,
} from '@atrium/sdk';
import { useCallback, useEffect, useState } from 'react';

/** Where the last applied theme is cached, so the next load starts in it instead of flashing another. */
export const THEME_CACHE_KEY = 'atrium.theme';

/** The cached theme, `system` when there is none (or something else is stored there). */
export function readCachedTheme(storage: Storage = window.localStorage): ThemePreference {
  const cached = storage.getItem(THEME_CACHE_KEY);
  return isThemePreference(cached) ? cached : 'system';
}

/**
 * The shell's theme: starts from the cache, follows the person's preference from `GET /api/me`, and applies
 * every change to the whole document (shell and remotes) and caches it. The API holds the real value; if it is
 * down the theme stays as it was (the feature pages report the outage).
 */
export function useThemePreference(api: ApiClient) {
  const [theme, setThemeState] = useState<ThemePreference>(() => readCachedTheme());

  const setTheme = useCallback((next: ThemePreference) => {
    setThemeState(next);
    applyTheme(next);
    window.localStorage.setItem(THEME_CACHE_KEY, next);
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    api.get<MeDocument>('/api/me', { signal: controller.signal }).then(
      (me) =>
        !controller.signal.aborted &&
        isThemePreference(me.preferences?.theme) &&
        setTheme(me.preferences.theme),
      () => undefined,
    );
    return () => controller.abort();
  }, [api, setTheme]);

  return { theme, setTheme };
}
