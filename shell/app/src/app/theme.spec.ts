// @vitest-environment happy-dom
import { THEME_ATTRIBUTE } from '@atrium/sdk';
import { setupApiServer, testApiClient } from '@atrium/sdk/testing';
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { readCachedTheme, THEME_CACHE_KEY, useThemePreference } from './theme';

const API = window.location.origin;
const server = setupApiServer();
afterEach(() => {
  cleanup();
  window.localStorage.clear();
  document.documentElement.removeAttribute(THEME_ATTRIBUTE);
});

const me = (theme: string) => ({
  sub: 's',
  username: 'alice',
  name: 'Alice',
  email: 'alice@atrium.test',
  roles: [],
  preferences: { theme },
});

describe('readCachedTheme', () => {
  it('returns the cached theme, and system when none or something else is stored', () => {
    expect(readCachedTheme()).toBe('system');
    window.localStorage.setItem(THEME_CACHE_KEY, 'dark');
    expect(readCachedTheme()).toBe('dark');
    window.localStorage.setItem(THEME_CACHE_KEY, 'neon');
    expect(readCachedTheme()).toBe('system');
  });
});

describe('useThemePreference', () => {
  it("starts from the cache, then applies and caches the person's preference from the API", async () => {
    window.localStorage.setItem(THEME_CACHE_KEY, 'light');
    server.use(http.get(`${API}/api/me`, () => HttpResponse.json(me('dark'))));
    const { result } = renderHook(() => useThemePreference(testApiClient()));

    expect(result.current.theme).toBe('light');
    await waitFor(() => expect(result.current.theme).toBe('dark'));
    expect(document.documentElement.getAttribute(THEME_ATTRIBUTE)).toBe('dark');
    expect(window.localStorage.getItem(THEME_CACHE_KEY)).toBe('dark');
  });

  it('keeps the theme when the API is down or answers something that is not a theme', async () => {
    window.localStorage.setItem(THEME_CACHE_KEY, 'light');
    let calls = 0;
    server.use(
      http.get(`${API}/api/me`, () => {
        calls += 1;
        return calls === 1 ? HttpResponse.error() : HttpResponse.json(me('neon'));
      }),
    );
    const first = renderHook(() => useThemePreference(testApiClient()));
    await waitFor(() => expect(calls).toBe(1));
    const second = renderHook(() => useThemePreference(testApiClient()));
    await waitFor(() => expect(calls).toBe(2));

    expect(first.result.current.theme).toBe('light');
    expect(second.result.current.theme).toBe('light');
    expect(document.documentElement.getAttribute(THEME_ATTRIBUTE)).toBeNull();
  });

  it('applies a theme set by a remote to the whole document and caches it', () => {
    server.use(http.get(`${API}/api/me`, () => new Promise<Response>(() => undefined)));
    const { result } = renderHook(() => useThemePreference(testApiClient()));

    act(() => result.current.setTheme('dark'));

    expect(result.current.theme).toBe('dark');
    expect(document.documentElement.getAttribute(THEME_ATTRIBUTE)).toBe('dark');
    expect(window.localStorage.getItem(THEME_CACHE_KEY)).toBe('dark');
  });
});
