/*
 * PostgreSQL data exceptions (SQLSTATE class 22) that mean "this value cannot be stored", as opposed to
 * "the database is away" or "the query is wrong". Every value this API writes comes from a request body,
 * a path or a token, so when one slips past validation (a NUL character in a title, a string wider than
 * its column) the client sent it: answering 500 would blame the server and invite retries. MikroORM's
 * PostgreSQL converter has no exception class for these and copies the pg error's `code`. SQLite stores
 * such values as they are, so it raises none of these.
 */
const DATA_EXCEPTION_CODES = new Set([
  '22001', // string_data_right_truncation: longer than varchar(n)
  '22003', // numeric_value_out_of_range
  '22007', // invalid_datetime_format
  '22008', // datetime_field_overflow
  '22021', // character_not_in_repertoire: a NUL character in text
  '22P02', // invalid_text_representation: e.g. "abc" for an integer
  '22P05', // untranslatable_character: \u0000 in jsonb
]);

/** Whether `error` (or its cause chain) is the database refusing a value the client supplied. */
export function isDataException(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 5) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && DATA_EXCEPTION_CODES.has(code)) return true;
  return isDataException(error.cause, depth + 1);
}
