import { join } from 'node:path';
import { type Options } from '@mikro-orm/core';
import { Migrator } from '@mikro-orm/migrations';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { SqliteDriver } from '@mikro-orm/sqlite';
import type { DatabaseTarget } from '../config/index.js';

/**
 * Folder holding one driver's migrations and snapshot (see docs/adr/0002-migrations-per-driver.md).
 * Resolved beside this file, so it is `src/...` under vitest and `dist/...` once built.
 */
export function migrationsPath(
  driver: DatabaseTarget['driver'],
  baseDir: string = import.meta.dirname,
): string {
  return join(baseDir, 'migrations', driver);
}

/**
 * MikroORM options for a database target; the only place that knows both drivers. They name no entity: the
 * running API gets them from the modules (`autoLoadEntities`, database.module.ts), applying migrations needs
 * none (the migrations are SQL), and whoever needs entities beyond that passes them in `overrides`
 * (src/create-migration.ts passes src/entities.ts).
 */
export function ormOptions(database: DatabaseTarget, overrides: Partial<Options> = {}): Options {
  const common = {
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: false },
    // Requests get their own EntityManager through RequestContext; a shared global one would leak state.
    allowGlobalContext: false,
    ensureDatabase: false,
    debug: false,
    migrations: {
      path: migrationsPath(database.driver),
      snapshotName: '.snapshot',
      transactional: true,
      allOrNothing: true,
      silent: true,
      // The committed snapshot belongs to `migration:create`; applying migrations must not rewrite it.
      snapshotOnMigrate: false,
    },
  } satisfies Partial<Options>;
  if (database.driver === 'postgresql') {
    return {
      ...common,
      driver: PostgreSqlDriver,
      clientUrl: database.url,
      // Fail fast when the server is away instead of queueing requests behind a hanging connect.
      driverOptions: { connectionTimeoutMillis: 3_000 },
      pool: { max: 10 },
      ...overrides,
    } as Options;
  }
  return { ...common, driver: SqliteDriver, dbName: database.path, ...overrides } as Options;
}
