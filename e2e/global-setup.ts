import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack } from '../infra/dev/stack.ts';
import { ensurePostgres } from '../infra/dev/system-parts.ts';
import { createTemporaryDatabase } from '../infra/lib/postgres.ts';

/** Starts the real platform on a fresh PostgreSQL database for the browser journeys. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const postgres = await ensurePostgres({ log: (line) => console.log(`[e2e stack] ${line}`) });
  const database = await createTemporaryDatabase('atrium_e2e', postgres.url);
  const keycloakDataDir = mkdtempSync(join(tmpdir(), 'atrium-e2e-keycloak-'));
  // The release CLI the journeys call reads the same variable, so it publishes into this run's store.
  const releasesDir = mkdtempSync(join(tmpdir(), 'atrium-e2e-releases-'));
  const mailDir = mkdtempSync(join(tmpdir(), 'atrium-e2e-mail-'));
  process.env.ATRIUM_RELEASE_STORE_DIR = releasesDir;
  // Short-lived access tokens make the session journey watch renewals (applies to a freshly started Keycloak;
  // `npm test` starts it with the same value).
  process.env.ATRIUM_ACCESS_TOKEN_LIFESPAN ??= '60';
  const cleanUp = async () => {
    await database.drop();
    await postgres.stop();
    rmSync(keycloakDataDir, { recursive: true, force: true });
    rmSync(releasesDir, { recursive: true, force: true });
    rmSync(mailDir, { recursive: true, force: true });
  };
  try {
    const stack = await startStack({
      databaseUrl: database.url,
      keycloakDataDir,
      releasesDir,
      mailDir,
      // Two API processes behind a round-robin proxy: every journey proves the API keeps no state.
      apiReplicas: 2,
      // The canary journey's broken release is rolled back after 10 loads from 2 people on each side (the
      // floor of loads; 50 loads from 10 people in production), each person counting for up to 10 loads, so it
      // takes seconds of loading rather than hours. The statistics are the same.
      apiEnv: {
        ROLLBACK_MIN_SAMPLES: '10',
        ROLLBACK_MIN_REPORTERS: '2',
        ROLLBACK_MAX_LOADS_PER_PERSON: '10',
      },
      log: (line) => console.log(`[e2e stack] ${line}`),
    });
    // The journeys read Keycloak's mails from this inbox (Playwright's workers inherit the variable).
    process.env.ATRIUM_MAIL_INBOX_URL = stack.urls.mail;
    // Journeys that check what the API kept (e.g. after an account deletion) read its database directly.
    process.env.ATRIUM_E2E_DATABASE_URL = database.url;
    return async () => {
      await stack.stop();
      await cleanUp();
    };
  } catch (error) {
    await cleanUp().catch(() => undefined);
    throw error;
  }
}
