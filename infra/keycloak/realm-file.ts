import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The realm every Atrium component talks to. */
export const ATRIUM_REALM = 'atrium';

/** The realm definition Keycloak imports at its first start (see `--import-realm`). */
export const ATRIUM_REALM_FILE = join(import.meta.dirname, 'realm-atrium.json');

/**
 * Resolves `${NAME}` and `${NAME:default}` the way Keycloak does when it imports a realm file
 * (placeholders are replaced in the raw text before JSON parsing; unknown names without a default stay as
 * they are). Lets tests and tools see the realm exactly as a given environment would import it.
 */
export function resolveRealmPlaceholders(text: string, env: NodeJS.ProcessEnv): string {
  return text.replace(/\$\{([^}:]+)(?::([^}]*))?\}/g, (whole, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined) return value;
    return fallback ?? whole;
  });
}

/** SHA-256 of the realm file, recorded beside an imported database to notice a stale import later. */
export function realmFileFingerprint(path: string = ATRIUM_REALM_FILE): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}
