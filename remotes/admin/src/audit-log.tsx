import { useApi, type AuditPage } from '@atrium/sdk';
import { useEffect, useState } from 'react';
import { describeError } from './describe-error';
import { formatTime } from './remotes-console';

const PAGE_SIZE = 20;

type PageState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly page: AuditPage }
  | { readonly status: 'failed'; readonly message: string };

/** The registry's audit log, newest first, one page at a time. */
export function AuditLog() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<PageState>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    api.get<AuditPage>(`/api/audit?page=${page}&pageSize=${PAGE_SIZE}`, { signal: controller.signal }).then(
      (document) => setState({ status: 'ready', page: document }),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          setState({ status: 'failed', message: describeError('The audit log could not be loaded', error) });
        }
      },
    );
    return () => controller.abort();
  }, [api, page, attempt]);

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
  const { items, total, pageSize } = state.page;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const go = (next: number) => {
    setState({ status: 'loading' });
    setPage(next);
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
          disabled={page <= 1}
          onClick={() => go(page - 1)}
        >
          Previous
        </button>
        <span>
          Page {state.page.page} of {pages} ({total} entries)
        </span>
        <button
          type="button"
          className="atrium-admin__button atrium-admin__button--secondary"
          disabled={page >= pages}
          onClick={() => go(page + 1)}
        >
          Next
        </button>
      </nav>
    </section>
  );
}
