import { ConfigError, ensureDatabaseDirectory, loadConfig } from '../config/env.schema.js';
import { migrateDatabase } from './migrate-database.js';

// `npm run migrate`: applies pending migrations to DATABASE_URL and says what it did.
try {
  const config = loadConfig(process.env);
  ensureDatabaseDirectory(config);
  const target =
    config.database.driver === 'postgresql' ? redact(config.database.url) : `sqlite:${config.database.path}`;
  const applied = await migrateDatabase(config.database);
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
