import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensurePostgres, type PostgresServer } from '../dev/system-parts.ts';
import { ensureKeycloak, type KeycloakHandle } from '../keycloak/keycloak.ts';
import { createTemporaryDatabase, type TemporaryDatabase } from '../lib/postgres.ts';
// The keys it provides (`project.provide`), as the specs' `inject()` knows them.
import type {} from '@atrium/test-support/integration-tier';

let keycloak: KeycloakHandle | undefined;
let postgres: PostgresServer | undefined;
let database: TemporaryDatabase | undefined;
let keycloakDir: string | undefined;

/**
 * globalSetup of the `integration` project: a real Keycloak (reused when one already answers on 8080,
 * else started on a fresh data folder so the realm is imported anew) and a fresh database on a real
 * PostgreSQL (TEST_POSTGRES_URL, else 127.0.0.1:5432, else one started for this run: see ensurePostgres).
 */
export async function setup(project: TestProject): Promise<void> {
  keycloakDir = await mkdtemp(join(tmpdir(), 'atrium-it-keycloak-'));
  const startDatabase = async () => {
    postgres = await ensurePostgres({ log: (line) => console.log(`[integration] ${line}`) });
    database = await createTemporaryDatabase('atrium_it', postgres.url);
    return postgres.url;
  };
  const [keycloakStart, databaseStart] = await Promise.allSettled([
    ensureKeycloak({ dataDir: keycloakDir }),
    startDatabase(),
  ]);
  if (keycloakStart.status === 'fulfilled') keycloak = keycloakStart.value;
  if (keycloakStart.status === 'rejected' || databaseStart.status === 'rejected') {
    // Whatever did start is stopped here: a failed setup must leave no server behind.
    await teardown();
    throw keycloakStart.status === 'rejected'
      ? keycloakStart.reason
      : (databaseStart as PromiseRejectedResult).reason;
  }
  project.provide('oidcIssuerUrl', keycloakStart.value.issuer);
  project.provide('databaseUrl', database!.url);
  project.provide('postgresAdminUrl', databaseStart.value);
}

export async function teardown(): Promise<void> {
  await Promise.allSettled([database?.drop(), keycloak?.stop()]);
  await postgres?.stop();
  if (keycloakDir) await rm(keycloakDir, { recursive: true, force: true });
}
