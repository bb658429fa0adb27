import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MikroORM } from '@mikro-orm/core';
import { migrationsPath, ormOptions } from './database/index.js';
import { ENTITIES } from './entities.js';

/*
 * Development tool (`npm run migration:create -- <name> [postgresql|sqlite]`): diffs the entities
 * against each driver's committed snapshot (every module's, entities.ts) and writes a new migration into
 * src/database/migrations/<driver>.
 * SQLite needs no server (a throw-away file); PostgreSQL needs MIGRATION_DATABASE_URL, an empty scratch
 * database at the current schema, default postgres://postgres@127.0.0.1:5432/atrium_migrations.
 */
const [name, only] = process.argv.slice(2);
const sourceDir = join(import.meta.dirname, '..', 'src', 'database');
const drivers = only ? [only] : ['postgresql', 'sqlite'];

for (const driver of drivers) {
  const scratch = mkdtempSync(join(tmpdir(), 'atrium-migration-'));
  const target =
    driver === 'postgresql'
      ? ({
          driver,
          url:
            process.env['MIGRATION_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/atrium_migrations',
        } as const)
      : ({ driver: 'sqlite', path: join(scratch, 'scratch.db') } as const);
  const options = ormOptions(target, { allowGlobalContext: true, entities: ENTITIES });
  const orm = await MikroORM.init({
    ...options,
    migrations: { ...options.migrations, path: migrationsPath(target.driver, sourceDir), emit: 'ts' },
  });
  try {
    await orm.migrator.up();
    const result = await orm.migrator.create(undefined, false, false, name);
    console.log(result.fileName ? `${driver}: wrote ${result.fileName}` : `${driver}: no changes`);
  } finally {
    await orm.close(true);
    rmSync(scratch, { recursive: true, force: true });
  }
}
