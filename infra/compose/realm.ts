// Renders the realm docker compose imports outside the dev profile:
//   node infra/compose/realm.ts   (re)writes infra/compose/realm-atrium.json
// The realm file infra/keycloak/realm-atrium.json stays the single source (and what the dev profile imports);
// infra/checks/compose.spec.ts fails when the rendered file is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deploymentRealm } from '../keycloak/deployment-realm.ts';
import { ATRIUM_REALM_FILE } from '../keycloak/realm-file.ts';

/** The realm compose mounts into Keycloak unless `ATRIUM_REALM_FILE` names another (docs/deploy.md). */
export const composeRealmPath = join(import.meta.dirname, 'realm-atrium.json');

/**
 * The realm file as compose imports it outside development (deploymentRealm: no people, the administrators'
 * second factor required, no development client secret), as the JSON text Keycloak reads.
 */
export function renderComposeRealm(realmFile: string = ATRIUM_REALM_FILE): string {
  return `${JSON.stringify(deploymentRealm(readFileSync(realmFile, 'utf8')), null, 2)}\n`;
}

if (import.meta.main) {
  writeFileSync(composeRealmPath, renderComposeRealm());
  console.log(`wrote ${composeRealmPath}`);
}
