// @vitest-environment happy-dom
import { act, renderHook } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { testRemote } from '../testing/test-remote';
import type { CatalogueState } from './catalogue-state';
import { useListedRemotes } from './listed-remotes';
import type { RemoteCatalogue } from './remote-catalogue';

/** A catalogue whose state the test sets. */
function catalogueAt(initial: CatalogueState) {
  let state = initial;
  const listeners = new Set<() => void>();
  const catalogue = {
    subscribe: (listener: () => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    getSnapshot: () => state,
    retry: vi.fn(),
  } as unknown as RemoteCatalogue & { retry: ReturnType<typeof vi.fn> };
  const move = (next: Partial<CatalogueState>) =>
    act(() => {
      state = { ...state, ...next };
      for (const listener of listeners) listener();
    });
  return { catalogue, move };
}

describe('useListedRemotes', () => {
  it('shows the list only once it is adopted, and why it failed with Retry', () => {
    const profile = testRemote('profile');
    const { catalogue, move } = catalogueAt({ early: 'none', step: 'closed' });
    const { result } = renderHook(() => useListedRemotes(catalogue));
    expect(result.current.status).toBe('loading');

    move({ step: 'loading' });
    expect(result.current.status).toBe('loading');
    // The registry's list is in, but this tab's dev overrides are still being applied: nothing may load yet.
    move({ step: 'fresh', remotes: [profile] });
    expect(result.current).toMatchObject({ status: 'loading', data: undefined });
    move({ step: 'adopted', remotes: [profile] });
    expect(result.current).toMatchObject({ status: 'ready', data: [profile] });

    const down = new Error('down');
    move({ step: 'failed', remotes: undefined, error: down });
    expect(result.current).toMatchObject({ status: 'failed', error: down });
    result.current.refetch();
    expect(catalogue.retry).toHaveBeenCalledOnce();
  });
});
