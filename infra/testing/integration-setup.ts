import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureKeycloak, type KeycloakHandle } from '../keycloak/keycloak.ts';
import { createTemporaryDatabase, postgresAdminUrl, type TemporaryDatabase } from './postgres.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Issuer of the atrium realm on the test Keycloak, e.g. http://localhost:8080/realms/atrium. */
    oidcIssuerUrl: string;
    /** A fresh, empty PostgreSQL database for this run (dropped afterwards). */
    databaseUrl: string;
    /** Admin connection to the same server, for tests that create and drop their own databases. */
    postgresAdminUrl: string;
  }
}

let keycloak: KeycloakHandle | undefined;
let database: TemporaryDatabase | undefined;
let keycloakDir: string | undefined;

/**
 * globalSetup of the `integration` project: a real Keycloak (reused when one already answers on 8080,
 * else started on a fresh data folder so the realm is imported anew) and a fresh PostgreSQL database.
 */
export async function setup(project: TestProject): Promise<void> {
  keycloakDir = await mkdtemp(join(tmpdir(), 'atrium-it-keycloak-'));
  [keycloak, database] = await Promise.all([
    ensureKeycloak({ dataDir: keycloakDir }),
    createTemporaryDatabase('atrium_it'),
  ]);
  project.provide('oidcIssuerUrl', keycloak.issuer);
  project.provide('databaseUrl', database.url);
  project.provide('postgresAdminUrl', postgresAdminUrl);
}

export async function teardown(): Promise<void> {
  await Promise.allSettled([database?.drop(), keycloak?.stop()]);
  if (keycloakDir) await rm(keycloakDir, { recursive: true, force: true });
}
