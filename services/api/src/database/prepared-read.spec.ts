import { describe, expect, it } from 'vitest';
import { numberedPlaceholders } from './prepared-read.js';

describe('numberedPlaceholders', () => {
  it("numbers MikroORM's placeholders for PostgreSQL in order", () => {
    expect(
      numberedPlaceholders(
        'select "u0"."name" from "user_profile" as "u0" where "u0"."id" = ? and "u0"."x" in (?, ?)',
      ),
    ).toBe('select "u0"."name" from "user_profile" as "u0" where "u0"."id" = $1 and "u0"."x" in ($2, $3)');
  });

  it('leaves a question mark inside a quoted identifier or string alone', () => {
    expect(numberedPlaceholders(`select "odd?name" from t where a = '?' and b = ?`)).toBe(
      `select "odd?name" from t where a = '?' and b = $1`,
    );
  });
});
