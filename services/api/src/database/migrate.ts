import { ConfigError, ensureDatabaseDirectory, loadDatabaseTarget } from '../config/index.js';
import { migrateDatabase } from './migrate-database.js';

// `npm run migrate`: applies pending migrations to DATABASE_URL and says what it did. It reads DATABASE_URL
// alone: the migration one-shots (compose `migrate`, the Kubernetes Job) hold none of the API's secrets.
try {
  const database = loadDatabaseTarget(process.env);
  ensureDatabaseDirectory({ database });
  const target = database.driver === 'postgresql' ? redact(database.url) : `sqlite:${database.path}`;
  const applied = await migrateDatabase(database);
  if (applied.length === 0) {
    console.log(`${target}: schema is up to date, no migration applied.`);
  } else {
    console.log(
      `${target}: applied ${applied.length} migration(s):\n${applied.map((name) => `  - ${name}`).join('\n')}`,
    );
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exitCode = 1;
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
