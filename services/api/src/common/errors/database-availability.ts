import { ConnectionException } from '@mikro-orm/core';

/*
 * Errors that mean "the database is not there right now" rather than "this query is wrong". Matching by
 * code keeps us independent of how each driver wraps them: MikroORM's PostgreSQL converter does not
 * turn connection failures into ConnectionException, it copies the pg error's fields.
 */
const UNAVAILABLE_CODES = new Set([
  // Node socket errors from pg
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  // PostgreSQL SQLSTATE classes 08 (connection), 57P (operator intervention), 53300, 3D000, 28xxx
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '3D000',
  '28000',
  '28P01',
  // SQLite
  'SQLITE_BUSY',
  'SQLITE_CANTOPEN',
  'SQLITE_IOERR',
  'SQLITE_FULL',
  'SQLITE_LOCKED',
]);

const UNAVAILABLE_MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /connection ended unexpectedly/i,
  /client has encountered a connection error/i,
  /cannot use a pool after calling end/i,
];

/** Whether `error` (or its cause chain) says the database cannot be reached, as opposed to a bug. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  if (error instanceof ConnectionException) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
  if (
    error instanceof AggregateError &&
    error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))
  ) {
    return true;
  }
  if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(error.message))) return true;
  return isDatabaseUnavailable(error.cause, depth + 1);
}
