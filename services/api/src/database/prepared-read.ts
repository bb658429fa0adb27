import type { EntityManager } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import type { Pool } from 'pg';

/** better-sqlite3's database and statement, as far as a prepared read uses them. */
interface SqliteDatabase {
  prepare(sql: string): { get(...params: unknown[]): unknown };
}

/** Reads one row with `params` bound to the statement's placeholders, in the order the query builder had them. */
export type PreparedRead<Row> = (em: EntityManager, params: readonly unknown[]) => Promise<Row | undefined>;

/**
 * A read made on every request of a hot path, as a statement the database prepares once and reuses.
 *
 * MikroORM writes each parameter into the SQL text it sends (`platform.formatQuery`), so the database parses
 * and plans every call anew, and the query builder and Kysely run for each: on `/api/me` that was most of the
 * request. Here the SQL is still MikroORM's own, built once by `build` from the entity's metadata (table,
 * columns, quoting), with its parameters left as placeholders; each call binds the values: better-sqlite3's
 * cached statement on SQLite, a named statement of the `pg` pool on PostgreSQL (prepared once per connection).
 * Rows are the driver's, unmapped, as `execute('get', false)` returns them. A driver error is thrown as is: an
 * unreachable database is recognised by its code (common/errors/database-availability.ts).
 *
 * @param name the statement's name on PostgreSQL: one per distinct SQL text.
 */
export function preparedRead<Row>(
  name: string,
  build: (em: SqlEntityManager) => { getQuery(): string; getParams(): readonly unknown[] },
): PreparedRead<Row> {
  let query: { readonly sql: string; readonly parameters: number } | undefined;
  const statements = new WeakMap<object, { get(...params: unknown[]): unknown }>();
  return async (em, params) => {
    const sqlEm = em as SqlEntityManager;
    if (query === undefined) {
      const qb = build(sqlEm);
      query = { sql: qb.getQuery(), parameters: qb.getParams().length };
    }
    if (params.length !== query.parameters) {
      throw new Error(`${name} takes ${query.parameters} parameters, not ${params.length}`);
    }
    const native = await sqlEm.getConnection().getNativeClient();
    if (isPool(native)) {
      const result = await native.query({ name, text: numberedPlaceholders(query.sql), values: [...params] });
      return result.rows[0] as Row | undefined;
    }
    // A new database object (the connection was opened again) gets its own statement.
    let statement = statements.get(native as object);
    if (statement === undefined) {
      statement = (native as SqliteDatabase).prepare(query.sql);
      statements.set(native as object, statement);
    }
    return statement.get(...params) as Row | undefined;
  };
}

function isPool(native: unknown): native is Pool {
  return native !== null && typeof native === 'object' && 'waitingCount' in native;
}

/**
 * MikroORM's `?` placeholders as PostgreSQL's `$1`, `$2`, …; a `?` inside a quoted identifier or string is
 * left alone.
 */
export function numberedPlaceholders(sql: string): string {
  let numbered = '';
  let quote: string | undefined;
  let next = 1;
  for (const char of sql) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined;
      numbered += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      numbered += char;
    } else if (char === '?') {
      numbered += `$${next++}`;
    } else {
      numbered += char;
    }
  }
  return numbered;
}
