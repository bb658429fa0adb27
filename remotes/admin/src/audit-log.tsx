import { useApi, type AuditPage } from '@atrium/sdk';
import { Button, ResourceView, useAsyncResource } from '@atrium/sdk/ui';
import { useCallback, useState } from 'react';
import { formatTime } from './remotes-console';

const PAGE_SIZE = 20;

/** The registry's audit log, newest first, one page at a time. */
export function AuditLog() {
  const api = useApi();
  const [page, setPage] = useState(1);
  const load = useCallback(
    (signal: AbortSignal) => api.get<AuditPage>(`/api/audit?page=${page}&pageSize=${PAGE_SIZE}`, { signal }),
    [api, page],
  );
  const audit = useAsyncResource(load);

  return (
    <ResourceView
      resource={audit}
      loading="Loading the audit log…"
      failed="The audit log could not be loaded"
    >
      {({ items, total, pageSize, page: shown }) => {
        const pages = Math.max(1, Math.ceil(total / pageSize));
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
              <Button variant="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Previous
              </Button>
              <span>
                Page {shown} of {pages} ({total} entries)
              </span>
              <Button variant="secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                Next
              </Button>
            </nav>
          </section>
        );
      }}
    </ResourceView>
  );
}
