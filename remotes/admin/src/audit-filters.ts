import { remoteNameProblem } from '@atrium/sdk';
import { actionLabel, isAuditAction } from './audit-words';

/**
 * What the audit log is narrowed to, as the page's address carries it (`?actor=ada&from=2026-11-01`): a
 * person's (or client's) user name, an action, a remote, and the first and last day (YYYY-MM-DD, the
 * person's own time zone). An absent key is no filter.
 */
export interface AuditFilters {
  readonly actor?: string;
  readonly action?: string;
  readonly remote?: string;
  readonly from?: string;
  readonly to?: string;
}

/** The keys, in the order the address lists them. */
const KEYS = ['actor', 'action', 'remote', 'from', 'to'] as const;

/** The longest user name the API keeps (its MAX_NAME_LENGTH). */
const MAX_ACTOR_LENGTH = 255;

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Local midnight at the start of `day` (YYYY-MM-DD), or undefined for anything that is no calendar day. */
function startOf(day: string): Date | undefined {
  const match = DAY.exec(day);
  if (!match) return undefined;
  const [year, month, date] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const start = new Date(year, month - 1, date);
  return start.getFullYear() === year && start.getMonth() === month - 1 && start.getDate() === date
    ? start
    : undefined;
}

/** Quoted for a message, cut short when long. */
const quoted = (value: string) => `“${value.length > 60 ? `${value.slice(0, 60)}…` : value}”`;

/**
 * The filters of a query string, each value checked: one that cannot be used is left out and said in
 * `problems`, in a sentence for the person who opened the address.
 */
export function parseFilters(query: string): { filters: AuditFilters; problems: string[] } {
  const params = new URLSearchParams(query);
  const filters: { -readonly [key in keyof AuditFilters]: string } = {};
  const problems: string[] = [];
  const value = (key: (typeof KEYS)[number]) => params.get(key)?.trim() || undefined;

  const actor = value('actor');
  if (actor !== undefined) {
    if ([...actor].length <= MAX_ACTOR_LENGTH) filters.actor = actor;
    else problems.push(`The person ${quoted(actor)} is longer than any user name.`);
  }
  const action = value('action');
  if (action !== undefined) {
    if (isAuditAction(action)) filters.action = action;
    else problems.push(`${quoted(action)} is not something the audit log records.`);
  }
  const remote = value('remote');
  if (remote !== undefined) {
    if (remoteNameProblem(remote) === undefined) filters.remote = remote;
    else problems.push(`${quoted(remote)} is not the name of a remote.`);
  }
  for (const [key, name] of [
    ['from', 'The first day'],
    ['to', 'The last day'],
  ] as const) {
    const day = value(key);
    if (day === undefined) continue;
    if (startOf(day)) filters[key] = day;
    else problems.push(`${name}, ${quoted(day)}, is not a date such as 2026-11-23.`);
  }
  if (filters.from !== undefined && filters.to !== undefined && filters.to < filters.from) {
    problems.push(`The last day (${filters.to}) is before the first day (${filters.from}).`);
    delete filters.to;
  }
  return { filters, problems };
}

/** The query string of `filters` for the page's address (no `?`; empty for none). */
export function filtersQuery(filters: AuditFilters): string {
  const params = new URLSearchParams();
  for (const key of KEYS) {
    const value = filters[key]?.trim();
    if (value) params.set(key, value);
  }
  return params.toString();
}

/**
 * The query of `GET /api/audit` for `filters` (no `?`): the days become the instants the API takes, from the
 * start of the first day to the start of the day after the last, in the person's time zone.
 */
export function apiFilters(filters: AuditFilters): string {
  const params = new URLSearchParams();
  if (filters.actor) params.set('actor', filters.actor);
  if (filters.action) params.set('action', filters.action);
  if (filters.remote) params.set('remote', filters.remote);
  const from = filters.from === undefined ? undefined : startOf(filters.from);
  if (from) params.set('from', from.toISOString());
  const last = filters.to === undefined ? undefined : startOf(filters.to);
  if (last) {
    params.set('to', new Date(last.getFullYear(), last.getMonth(), last.getDate() + 1).toISOString());
  }
  return params.toString();
}

/** Whether any filter is set. */
export function isFiltered(filters: AuditFilters): boolean {
  return KEYS.some((key) => filters[key] !== undefined);
}

/** The filters in words, for the empty result: `ada, Published a version, from 2026-11-01`. */
export function describeFilters(filters: AuditFilters): string {
  return [
    filters.actor,
    filters.action === undefined ? undefined : actionLabel(filters.action),
    filters.remote,
    filters.from === undefined ? undefined : `from ${filters.from}`,
    filters.to === undefined ? undefined : `until ${filters.to}`,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
}
