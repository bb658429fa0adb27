import { useApi } from '@atrium/sdk';
import { useCallback, useEffect, useState } from 'react';

export type ResourceState<T> =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly value: T }
  | { readonly status: 'failed'; readonly error: unknown };

/** GETs an API document for the Security section, with a `reload` for retries and after changes. */
export function useAccountResource<T>(path: string): { state: ResourceState<T>; reload: () => void } {
  const api = useApi();
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<ResourceState<T>>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    api.get<T>(path, { signal: controller.signal }).then(
      (value) => setState({ status: 'ready', value }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ status: 'failed', error });
      },
    );
    return () => controller.abort();
  }, [api, path, attempt]);

  const reload = useCallback(() => setAttempt((value) => value + 1), []);
  return { state, reload };
}
