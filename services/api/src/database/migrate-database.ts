import { MikroORM } from '@mikro-orm/core';
import type { DatabaseTarget } from '../config/index.js';
import { ormOptions } from './orm-options.js';

/**
 * Applies the pending migrations of the target's driver and returns their names, in order. All of them
 * run in one transaction: a failure leaves the schema as it was. The migrations are SQL: no entity is needed.
 */
export async function migrateDatabase(database: DatabaseTarget): Promise<string[]> {
  const orm = await MikroORM.init(ormOptions(database, { allowGlobalContext: true }));
  try {
    const applied = await orm.migrator.up();
    return applied.map((migration) => migration.name);
  } finally {
    await orm.close(true);
  }
}
