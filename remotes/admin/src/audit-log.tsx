import {
  useApi,
  useAtrium,
  type AdminRemotesDocument,
  type AtriumUser,
  type AuditEntry,
  type AuditPage,
} from '@atrium/sdk';
import {
  Alert,
  Button,
  Card,
  Field,
  FormRow,
  ResourceView,
  SelectField,
  Table,
  useApiResource,
  useAsyncResource,
} from '@atrium/sdk/ui';
import { useCallback, useMemo, useState, type FormEvent } from 'react';
import {
  apiFilters,
  describeFilters,
  filtersQuery,
  isFiltered,
  parseFilters,
  type AuditFilters,
} from './audit-filters';
import { ACTION_CHOICES, actionLabel, describeEntry } from './audit-words';
import { formatTime } from './remotes-console';
import { useQueryString } from './url-query';

const PAGE_SIZE = 20;

/**
 * Who did it: the person's name as their token gave it when the entry was written (for older entries, the
 * signed-in person's own), the id they are logged under kept in a tooltip and for screen readers; otherwise
 * the id itself (a client's, or a person's without a name).
 */
function Actor({ entry, user }: { readonly entry: AuditEntry; readonly user: AtriumUser }) {
  const you = entry.actor === user.username ? ' (you)' : '';
  const name = entry.actorName ?? (you ? user.name : null);
  if (!name || name === entry.actor) return <>{`${entry.actor}${you}`}</>;
  return (
    <span title={entry.actor}>
      {name}
      {you}
      <span className="atrium-visually-hidden">, {entry.actor}</span>
    </span>
  );
}

/**
 * The audit log, newest first, one page at a time (the API's keyset cursors), narrowed by the filters in the
 * page's address: a filtered view can be shared and reloaded, and a new filter starts again at page 1.
 */
export function AuditLog() {
  const [query, setQuery] = useQueryString();
  const { filters, problems } = useMemo(() => parseFilters(query), [query]);
  const apply = (next: AuditFilters) => setQuery(filtersQuery(next));
  const entriesQuery = apiFilters(filters);
  return (
    <Card heading="Audit log" className="atrium-admin__audit">
      {/* Keyed by the address: Back and Forward show their own filters in the form. */}
      <FilterForm key={`form?${query}`} filters={filters} onApply={apply} />
      {problems.length > 0 && (
        <Alert title="Part of this address could not be used" data-testid="audit-filter-problems">
          <ul className="atrium-admin__long-text">
            {problems.map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
          <p>The entries below are shown without it.</p>
        </Alert>
      )}
      {/* Keyed by the query: other filters start again at page 1. */}
      <AuditEntries key={`entries?${entriesQuery}`} query={entriesQuery} filters={filters} />
    </Card>
  );
}

type FormValues = Required<{ [key in keyof AuditFilters]: string }>;

function FilterForm({
  filters,
  onApply,
}: {
  readonly filters: AuditFilters;
  readonly onApply: (filters: AuditFilters) => void;
}) {
  const [values, setValues] = useState<FormValues>(() => ({
    actor: filters.actor ?? '',
    action: filters.action ?? '',
    remote: filters.remote ?? '',
    from: filters.from ?? '',
    to: filters.to ?? '',
  }));
  const registry = useApiResource<AdminRemotesDocument>('/api/admin/remotes');
  const set = (key: keyof FormValues) => (event: { target: { value: string } }) =>
    setValues((current) => ({ ...current, [key]: event.target.value }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onApply(values);
  };

  const actions = withCurrent(ACTION_CHOICES, values.action, actionLabel);
  const remotes = withCurrent(
    (registry.data?.remotes ?? []).map((remote) => ({
      value: remote.name,
      label: `${remote.title} (${remote.name})`,
    })),
    values.remote,
    (name) => name,
  );
  return (
    <form aria-label="Filter the audit log" className="atrium-admin__filters" noValidate onSubmit={submit}>
      <FormRow>
        <Field
          label="Person (user name)"
          name="actor"
          value={values.actor}
          onChange={set('actor')}
          autoComplete="off"
          spellCheck={false}
        />
        <SelectField
          label="Action"
          name="action"
          value={values.action}
          onChange={set('action')}
          options={[{ value: '', label: 'All actions' }, ...actions]}
        />
        <SelectField
          label="Remote"
          name="remote"
          value={values.remote}
          onChange={set('remote')}
          options={[{ value: '', label: 'All remotes' }, ...remotes]}
        />
        <Field label="From" name="from" type="date" value={values.from} onChange={set('from')} />
        <Field label="To" name="to" type="date" value={values.to} onChange={set('to')} />
        <Button type="submit">Show entries</Button>
        {isFiltered(filters) && (
          <Button variant="secondary" onClick={() => onApply({})}>
            Clear filters
          </Button>
        )}
      </FormRow>
      {registry.status === 'failed' && (
        <p className="atrium-admin__muted">The remotes could not be listed; the other filters work.</p>
      )}
    </form>
  );
}

/** The choices, with `current` added when they do not list it (an address names it, the list is loading). */
function withCurrent(
  choices: readonly { readonly value: string; readonly label: string }[],
  current: string,
  label: (value: string) => string,
): readonly { readonly value: string; readonly label: string }[] {
  return current === '' || choices.some((choice) => choice.value === current)
    ? choices
    : [...choices, { value: current, label: label(current) }];
}

function AuditEntries({ query, filters }: { readonly query: string; readonly filters: AuditFilters }) {
  const api = useApi();
  const { user } = useAtrium();
  // The cursor of each page opened so far, the first page's being none: Newer goes back one.
  const [cursors, setCursors] = useState<readonly (string | undefined)[]>([undefined]);
  const cursor = cursors.at(-1);
  const load = useCallback(
    (signal: AbortSignal) => {
      const before = cursor ? `&before=${encodeURIComponent(cursor)}` : '';
      const filtered = query === '' ? '' : `&${query}`;
      return api.get<AuditPage>(`/api/audit?pageSize=${PAGE_SIZE}${filtered}${before}`, { signal });
    },
    [api, query, cursor],
  );
  const audit = useAsyncResource(load);

  return (
    <ResourceView
      resource={audit}
      loading="Loading the audit log…"
      failed="The audit log could not be loaded"
    >
      {({ items, nextCursor }) => (
        <>
          {items.length === 0 ? (
            <p className="atrium-admin__long-text" data-testid="audit-empty">
              {isFiltered(filters)
                ? `No entries match these filters (${describeFilters(filters)}).`
                : 'Nothing has happened yet.'}
            </p>
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
                      <Actor entry={item} user={user} />
                    </td>
                    <td>
                      <span title={item.action}>{describeEntry(item)}</span>
                    </td>
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
        </>
      )}
    </ResourceView>
  );
}
