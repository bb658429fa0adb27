// @vitest-environment happy-dom
import { act, cleanup, renderHook, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it } from 'vitest';
import { renderFeature, setupApiServer } from '@atrium/sdk/testing';
import { useApiResource, useAsyncAction, useAsyncResource, type ResourceLoader } from './resource';

const API = window.location.origin;
const server = setupApiServer();
afterEach(cleanup);

/** Runs `fn` inside act() and lets the promises it settled deliver their answers. */
const settle = (fn: () => void) =>
  act(() => {
    fn();
    return Promise.resolve();
  });

/** A loader whose answers the test gives by hand, recording each call's signal. */
function manualLoader<T>() {
  const calls: {
    signal: AbortSignal;
    attempt: number;
    resolve: (value: T) => void;
    reject: (e: unknown) => void;
  }[] = [];
  const load: ResourceLoader<T> = (signal, attempt) =>
    new Promise<T>((resolve, reject) => calls.push({ signal, attempt, resolve, reject }));
  return { load, calls };
}

describe('useAsyncResource', () => {
  it('goes from loading to ready with the data', async () => {
    const { load, calls } = manualLoader<string>();
    const { result } = renderHook(() => useAsyncResource(load));
    expect(result.current.status).toBe('loading');
    await settle(() => calls[0]!.resolve('hello'));
    expect(result.current).toMatchObject({ status: 'ready', data: 'hello', refreshing: false });
  });

  it('fails with the error, then a retry shows loading and recovers', async () => {
    const { load, calls } = manualLoader<string>();
    const { result } = renderHook(() => useAsyncResource(load));
    const failure = new Error('down');
    await settle(() => calls[0]!.reject(failure));
    expect(result.current).toMatchObject({ status: 'failed', error: failure });

    act(() => result.current.refetch());
    expect(result.current.status).toBe('loading');
    expect(calls[1]!.attempt).toBe(1);
    await settle(() => calls[1]!.resolve('back'));
    expect(result.current).toMatchObject({ status: 'ready', data: 'back' });
  });

  it('keeps showing the data while a refetch is under way', async () => {
    const { load, calls } = manualLoader<number>();
    const { result } = renderHook(() => useAsyncResource(load));
    await settle(() => calls[0]!.resolve(1));
    act(() => result.current.refetch());
    expect(result.current).toMatchObject({ status: 'ready', data: 1, refreshing: true });
    await settle(() => calls[1]!.resolve(2));
    expect(result.current).toMatchObject({ status: 'ready', data: 2, refreshing: false });
  });

  it('aborts the request in flight on unmount and ignores its late answer', async () => {
    const { load, calls } = manualLoader<string>();
    const { result, unmount } = renderHook(() => useAsyncResource(load));
    unmount();
    expect(calls[0]!.signal.aborted).toBe(true);
    await settle(() => calls[0]!.resolve('late'));
    expect(result.current.status).toBe('loading');
  });

  it('starts at loading again, aborting the old request, when the loader changes', async () => {
    const first = manualLoader<string>();
    const second = manualLoader<string>();
    const { result, rerender } = renderHook(({ load }) => useAsyncResource(load), {
      initialProps: { load: first.load },
    });
    await settle(() => first.calls[0]!.resolve('page 1'));
    rerender({ load: second.load });
    expect(result.current.status).toBe('loading');
    await settle(() => second.calls[0]!.resolve('page 2'));
    expect(result.current).toMatchObject({ status: 'ready', data: 'page 2' });
  });

  it('takes data set by hand, e.g. what a PUT answered', async () => {
    const { load, calls } = manualLoader<string>();
    const { result } = renderHook(() => useAsyncResource(load));
    await settle(() => calls[0]!.resolve('old'));
    act(() => result.current.setData('new'));
    expect(result.current).toMatchObject({ status: 'ready', data: 'new' });
    expect(calls).toHaveLength(1);
  });
});

describe('useApiResource', () => {
  it('GETs the path with the shell API client and aborts it on unmount', async () => {
    let aborted: Promise<boolean> | undefined;
    server.use(
      http.get(`${API}/api/slow`, ({ request }) => {
        aborted = new Promise((resolve) => request.signal.addEventListener('abort', () => resolve(true)));
        return aborted.then(() => HttpResponse.error());
      }),
      http.get(`${API}/api/me`, ({ request }) =>
        HttpResponse.json({ ok: true, authorization: request.headers.get('authorization') }),
      ),
    );
    function Probe({ path }: { path: string }) {
      const resource = useApiResource<{ ok: boolean; authorization: string }>(path);
      return (
        <p data-testid="probe">
          {resource.status === 'ready' ? resource.data.authorization : resource.status}
        </p>
      );
    }
    const view = renderFeature(<Probe path="/api/me" />);
    await waitFor(() => expect(view.getByTestId('probe').textContent).toBe('DPoP test-access-token'));

    view.rerender(<Probe path="/api/slow" />);
    await waitFor(() => expect(aborted).toBeDefined());
    view.unmount();
    expect(await aborted).toBe(true);
  });
});

describe('useAsyncAction', () => {
  it('is busy while running, then done with the value', async () => {
    const { result } = renderHook(() => useAsyncAction());
    let finish!: (value: string) => void;
    let outcome: Promise<unknown> | undefined;
    act(() => {
      outcome = result.current.run(() => new Promise<string>((resolve) => (finish = resolve)));
    });
    expect(result.current.busy).toBe(true);
    await settle(() => finish('saved'));
    expect(await outcome).toEqual({ ok: true, value: 'saved' });
    expect(result.current.status).toBe('done');
  });

  it('keeps the error when the action fails, and runs only once at a time', async () => {
    const { result } = renderHook(() => useAsyncAction());
    let fail!: (error: unknown) => void;
    let runs = 0;
    const action = () => {
      runs += 1;
      return new Promise<void>((_resolve, reject) => (fail = reject));
    };
    let first: Promise<unknown> | undefined;
    let second: Promise<unknown> | undefined;
    act(() => {
      first = result.current.run(action);
      second = result.current.run(action);
    });
    expect(await second).toEqual({ ok: false, error: undefined });
    const error = new Error('refused');
    await settle(() => fail(error));
    expect(await first).toEqual({ ok: false, error });
    expect(runs).toBe(1);
    expect(result.current).toMatchObject({ status: 'failed', error });
    act(() => result.current.reset());
    expect(result.current.status).toBe('idle');
  });
});
