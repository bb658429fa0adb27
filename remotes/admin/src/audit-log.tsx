import { useApi, type AuditPage } from '@atrium/sdk';
import { useEffect, useState } from 'react';
import { describeError } from './describe-error';
import { formatTime } from './remotes-console';

const PAGE_SIZE = 20;

type PageState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly page: AuditPage }
  | { readonly status: 'failed'; readonly message: string };

/** The registry's audit log, newest first, one page at a time (the API's keyset cursors). */
export function AuditLog() {
  const api = useApi();
  // The cursor of each page opened so far, the first page's being none: Newer goes back one.
  const [cursors, setCursors] = useState<readonly (string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const pageNumber = cursors.length;
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<PageState>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    const before = cursor ? `&before=${encodeURIComponent(cursor)}` : '';
    api.get<AuditPage>(`/api/audit?pageSize=${PAGE_SIZE}${before}`, { signal: controller.signal }).then(
      (document) => setState({ status: 'ready', page: document }),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setState({ status: 'failed', message: describeError('The audit log could not be loaded', error) });
        }
      },
    );
    return () => controller.abort();
  }, [api, cursor, attempt]);

  if (state.status === 'loading') {
    return (
      <p role="status" className="atrium-admin__muted">
        Loading the audit log…
      </p>
    );
  }
  if (state.status === 'failed') {
    return (
      <div role="alert" className="atrium-admin__error">
        <p>{state.message}</p>
        <button
          type="button"
          className="atrium-admin__button"
          onClick={() => setAttempt((value) => value + 1)}
        >
          Retry
        </button>
      </div>
    );
  }
  const { items, nextCursor } = state.page;
  const go = (next: readonly (string | undefined)[]) => {
    setState({ status: 'loading' });
    setCursors(next);
  };
  return (
    <section aria-labelledby="audit-heading" className="atrium-admin__card">
      <h2 id="audit-heading">Audit log</h2>
      {items.length === 0 ? (
        <p>Nothing has happened yet.</p>
      ) : (
        <div className="atrium-admin__scroll">
          <table className="atrium-admin__table" data-testid="audit-table">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Target</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.id}>
                  <td>
                    <time dateTime={item.occurredAt}>{formatTime(item.occurredAt)}</time>
                  </td>
                  <td>{item.actor}</td>
                  <td>{item.action}</td>
                  <td>{item.target}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Audit log pages" className="atrium-admin__pager">
        <button
          type="button"
          className="atrium-admin__button atrium-admin__button--secondary"
          disabled={pageNumber <= 1}
          onClick={() => go(cursors.slice(0, -1))}
        >
          Newer
        </button>
        <span>Page {pageNumber}</span>
        <button
          type="button"
          className="atrium-admin__button atrium-admin__button--secondary"
          disabled={nextCursor === null}
          onClick={() => nextCursor !== null && go([...cursors, nextCursor])}
        >
          Older
        </button>
      </nav>
    </section>
  );
}
