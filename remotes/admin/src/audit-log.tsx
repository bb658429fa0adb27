import { useApi, useAtrium, type AtriumUser, type AuditPage } from '@atrium/sdk';
import { Button, ResourceView, Table, useAsyncResource } from '@atrium/sdk/ui';
import { useCallback, useState } from 'react';
import { formatTime } from './remotes-console';

const PAGE_SIZE = 20;

/**
 * Who did it, by name where the console knows the person (today: the one signed in), the id they are logged
 * under kept in a tooltip and for screen readers; otherwise the id itself (a person's or a client's).
 */
function Actor({ actor, user }: { readonly actor: string; readonly user: AtriumUser }) {
  if (actor !== user.username || user.name === actor) return <>{actor}</>;
  return (
    <span title={actor}>
      {user.name} (you)<span className="atrium-visually-hidden">, {actor}</span>
    </span>
  );
}

/** The registry's audit log, newest first, one page at a time (the API's keyset cursors). */
export function AuditLog() {
  const api = useApi();
  const { user } = useAtrium();
  // The cursor of each page opened so far, the first page's being none: Newer goes back one.
  const [cursors, setCursors] = useState<readonly (string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const load = useCallback(
    (signal: AbortSignal) => {
      const before = cursor ? `&before=${encodeURIComponent(cursor)}` : '';
      return api.get<AuditPage>(`/api/audit?pageSize=${PAGE_SIZE}${before}`, { signal });
    },
    [api, cursor],
  );
  const audit = useAsyncResource(load);

  return (
    <ResourceView
      resource={audit}
      loading="Loading the audit log…"
      failed="The audit log could not be loaded"
    >
      {({ items, nextCursor }) => {
        return (
          <section aria-labelledby="audit-heading" className="atrium-admin__card">
            <h2 id="audit-heading">Audit log</h2>
            {items.length === 0 ? (
              <p>Nothing has happened yet.</p>
            ) : (
              <Table caption="Audit log entries, newest first" captionHidden data-testid="audit-table">
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
                      <td>
                        <Actor actor={item.actor} user={user} />
                      </td>
                      <td>{item.action}</td>
                      <td>{item.target}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
            <nav aria-label="Audit log pages" className="atrium-admin__pager">
              <Button
                variant="secondary"
                disabled={cursors.length <= 1}
                onClick={() => setCursors(cursors.slice(0, -1))}
              >
                Newer
              </Button>
              <span>Page {cursors.length}</span>
              <Button
                variant="secondary"
                disabled={nextCursor === null}
                onClick={() => nextCursor !== null && setCursors([...cursors, nextCursor])}
              >
                Older
              </Button>
            </nav>
          </section>
        );
      }}
    </ResourceView>
  );
}
