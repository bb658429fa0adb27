import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStack } from '../infra/dev/stack.ts';
import { createTemporaryDatabase } from '../infra/testing/postgres.ts';

/** Starts the real platform on a fresh PostgreSQL database for the browser journeys. */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const database = await createTemporaryDatabase('atrium_e2e');
  const keycloakDataDir = mkdtempSync(join(tmpdir(), 'atrium-e2e-keycloak-'));
  const stack = await startStack({
    databaseUrl: database.url,
    keycloakDataDir,
    log: (line) => console.log(`[e2e stack] ${line}`),
  });
  return async () => {
    await stack.stop();
    await database.drop();
    rmSync(keycloakDataDir, { recursive: true, force: true });
  };
}
