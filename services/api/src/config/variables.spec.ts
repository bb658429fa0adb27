import { describe, expect, it } from 'vitest';
import { envSchema, loadConfig } from './env.schema.js';
import { API_VARIABLE_GROUPS } from './variables.js';

const rows = API_VARIABLE_GROUPS.flatMap((group) => group.variables);
const names = rows.map((row) => row.name);

/** Read outside the schema: `isDevelopment` decides with it whether secrets have their development values. */
const OUTSIDE_SCHEMA = ['NODE_ENV'];

describe("the API's table of variables", () => {
  it('has exactly one row for every variable of the schema, and no row for a variable the API does not read', () => {
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...Object.keys(envSchema.shape), ...OUTSIDE_SCHEMA].sort());
  });

  it('gives a secret a development value and no default, and only a secret a development value', () => {
    const secrets = rows.filter((row) => row.secret);
    expect(secrets.map((row) => row.name)).toContain('KEYCLOAK_ADMIN_CLIENT_SECRET');
    for (const row of rows) {
      if (row.secret) {
        expect(row.default, row.name).toBeUndefined();
        expect(row.developmentValue, row.name).toBeTruthy();
      } else expect(row.developmentValue, row.name).toBeUndefined();
    }
  });

  it('suggests only values the API accepts: each default and each example alone, in production too', () => {
    const production = { NODE_ENV: 'production', KEYCLOAK_ADMIN_CLIENT_SECRET: 'a-secret-of-our-own' };
    for (const row of rows.filter((row) => !OUTSIDE_SCHEMA.includes(row.name))) {
      for (const value of [row.default, row.example].filter((value) => value !== undefined)) {
        expect(() => loadConfig({ ...production, [row.name]: value }), `${row.name}=${value}`).not.toThrow();
      }
    }
  });

  it('writes the default of every variable the API reads unset as its table says', () => {
    // Where a row has a default, setting it changes nothing: the row is the one place the default is written.
    const production = { NODE_ENV: 'production', KEYCLOAK_ADMIN_CLIENT_SECRET: 'a-secret-of-our-own' };
    const defaults = Object.fromEntries(
      rows.flatMap((row) => (row.default === undefined ? [] : [[row.name, row.default]])),
    );
    expect(Object.keys(defaults).length).toBeGreaterThan(30);
    expect(loadConfig({ ...production, ...defaults }, '/srv/atrium')).toEqual(
      loadConfig(production, '/srv/atrium'),
    );
  });
});
