import { useApi } from '@atrium/sdk';
import { useCallback, useEffect, useRef, useState } from 'react';

/**
 * Loads a resource. `signal` is aborted when the component unmounts or the loader changes; `attempt` counts
 * the {@link AsyncResource.refetch} calls (0 for the first load).
 */
export type ResourceLoader<T> = (signal: AbortSignal, attempt: number) => Promise<T>;

interface ResourceControls<T> {
  /**
   * Loads again. After a failure the resource shows `loading` meanwhile (a retry); while it holds data it keeps
   * showing them with `refreshing: true` (a refetch after a change).
   */
  readonly refetch: () => void;
  /** Replaces the data, e.g. with the document a `PUT` answered, without loading again. */
  readonly setData: (data: T) => void;
}

/** What {@link useAsyncResource} and {@link useApiResource} return: one of three states, and the controls. */
export type AsyncResource<T> = ResourceControls<T> &
  (
    | {
        readonly status: 'loading';
        readonly data: undefined;
        readonly error: undefined;
        readonly refreshing: false;
      }
    | { readonly status: 'ready'; readonly data: T; readonly error: undefined; readonly refreshing: boolean }
    | {
        readonly status: 'failed';
        readonly data: undefined;
        readonly error: unknown;
        readonly refreshing: false;
      }
  );

type Settled<T> = { readonly load: ResourceLoader<T>; readonly attempt: number } & (
  { readonly status: 'ready'; readonly data: T } | { readonly status: 'failed'; readonly error: unknown }
);

/**
 * Loading, error and retry for any asynchronous resource, written once. Loads when mounted and whenever
 * `load` changes (so wrap it in `useCallback` with what it depends on), aborts the request in flight on unmount
 * or change, and ignores answers that arrive after that.
 *
 * ```tsx
 * const load = useCallback((signal: AbortSignal) => api.get<AuditPage>(`/api/audit?before=${cursor}`, { signal }), [api, cursor]);
 * const audit = useAsyncResource(load);
 * ```
 */
export function useAsyncResource<T>(load: ResourceLoader<T>): AsyncResource<T> {
  const [attempt, setAttempt] = useState(0);
  const [settled, setSettled] = useState<Settled<T> | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const settle = (outcome: Settled<T>) => {
      if (!controller.signal.aborted) setSettled(outcome);
    };
    load(controller.signal, attempt).then(
      (data) => settle({ load, attempt, status: 'ready', data }),
      (error: unknown) => settle({ load, attempt, status: 'failed', error }),
    );
    return () => controller.abort();
  }, [load, attempt]);

  const refetch = useCallback(() => setAttempt((value) => value + 1), []);
  const setData = useCallback(
    (data: T) => setSettled({ load, attempt, status: 'ready', data }),
    [load, attempt],
  );

  // An answer counts only for the loader that asked for it: a new loader (another page, say) starts at `loading`.
  const current = settled !== null && settled.load === load ? settled : null;
  const controls = { refetch, setData };
  if (current?.status === 'ready') {
    const refreshing = current.attempt !== attempt;
    return { ...controls, status: 'ready', data: current.data, error: undefined, refreshing };
  }
  if (current?.status === 'failed' && current.attempt === attempt) {
    return { ...controls, status: 'failed', data: undefined, error: current.error, refreshing: false };
  }
  return { ...controls, status: 'loading', data: undefined, error: undefined, refreshing: false };
}

/**
 * `GET path` from the Atrium API as an {@link AsyncResource}: loading, error, retry, abort on unmount, refetch.
 * Render its states with `ResourceView`, or read `status` yourself.
 *
 * ```tsx
 * const me = useApiResource<MeDocument>('/api/me');
 * ```
 */
export function useApiResource<T>(path: string): AsyncResource<T> {
  const api = useApi();
  const load = useCallback((signal: AbortSignal) => api.get<T>(path, { signal }), [api, path]);
  return useAsyncResource(load);
}

/** How an {@link AsyncAction} run ended. */
export type ActionOutcome<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown };

/** What {@link useAsyncAction} returns. */
export interface AsyncAction {
  /** `busy` while a run is under way; `done` or `failed` after it, until the next run or {@link reset}. */
  readonly status: 'idle' | 'busy' | 'done' | 'failed';
  readonly busy: boolean;
  /** The last run's error while `status` is `failed`. */
  readonly error: unknown;
  /**
   * Runs `action` unless a run is already under way (a second click or Enter while saving does nothing; its
   * outcome is `{ ok: false }` with no error). Never rejects: the outcome says how it went.
   */
  readonly run: <T>(action: () => Promise<T>) => Promise<ActionOutcome<T>>;
  /** Back to `idle`, e.g. when the person edits the form again. */
  readonly reset: () => void;
}

/**
 * Busy, done and failed states of an action such as saving a form, written once.
 *
 * ```tsx
 * const save = useAsyncAction();
 * const outcome = await save.run(() => api.put<MeDocument>('/api/me/preferences', { theme }));
 * if (outcome.ok) onSaved(outcome.value);
 * // <Button type="submit" busy={save.busy}>Save</Button>
 * // {save.status === 'failed' && <Alert>{describeApiError(save.error, 'Preferences were not saved')}</Alert>}
 * ```
 */
export function useAsyncAction(): AsyncAction {
  const [state, setState] = useState<{ status: AsyncAction['status']; error: unknown }>({
    status: 'idle',
    error: undefined,
  });
  const running = useRef(false);
  const run = useCallback(async <T>(action: () => Promise<T>): Promise<ActionOutcome<T>> => {
    if (running.current) return { ok: false, error: undefined };
    running.current = true;
    setState({ status: 'busy', error: undefined });
    try {
      const value = await action();
      setState({ status: 'done', error: undefined });
      return { ok: true, value };
    } catch (error) {
      setState({ status: 'failed', error });
      return { ok: false, error };
    } finally {
      running.current = false;
    }
  }, []);
  const reset = useCallback(() => {
    if (!running.current) setState({ status: 'idle', error: undefined });
  }, []);
  return { ...state, busy: state.status === 'busy', run, reset };
}
