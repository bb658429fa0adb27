/** One field an audited change touched, as the audit log's `changes` detail records it. */
export interface FieldChange<T> {
  readonly from: T;
  readonly to: T;
}

/**
 * The fields of `before` whose value differs in `after` (compared as JSON, so arrays compare by content),
 * each with its old and new value: what an `…updated` or `…changed` audit event keeps in `details.changes`.
 */
export function changedFields<T extends object>(
  before: T,
  after: T,
): Partial<{ [K in keyof T]: FieldChange<T[K]> }> {
  const fields = Object.keys(before) as Array<keyof T>;
  return Object.fromEntries(
    fields
      .filter((field) => JSON.stringify(before[field]) !== JSON.stringify(after[field]))
      .map((field) => [field, { from: before[field], to: after[field] }]),
  ) as Partial<{ [K in keyof T]: FieldChange<T[K]> }>;
}
