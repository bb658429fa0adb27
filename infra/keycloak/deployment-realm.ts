// What only development may import, in one place: the realm file (realm-atrium.json) is the development realm
// (`npm start`, the tests, compose's dev profile); everywhere else imports it through deploymentRealm() below
// (the Kubernetes realm import, compose's infra/compose/realm-atrium.json), and compose's preflight refuses any
// realm that still holds a person:
//   node infra/keycloak/deployment-realm.ts REALM_FILE   exits 1 naming every person REALM_FILE would import.
// Node's built-ins only: the preflight container mounts this one file and runs it.
import { readFileSync } from 'node:fs';

/** A user of a realm file; a client's service account names its client. */
export interface RealmUser {
  username: string;
  serviceAccountClientId?: string;
}

/** A realm definition as Keycloak imports it (only the parts these rules read are typed). */
export interface RealmDefinition {
  users?: RealmUser[];
  [key: string]: unknown;
}

/**
 * The requirement of the flow "atrium admins second factor" outside development: every `atrium-admin` who signs
 * in with a password gives an authenticator-app code (and sets one up at that sign-in if they have none).
 */
export const ADMIN_SECOND_FACTOR_OUTSIDE_DEVELOPMENT = 'CONDITIONAL';

/** The realm file's placeholder for that requirement, whatever its development default. */
const ADMIN_SECOND_FACTOR_PLACEHOLDER = /\$\{ATRIUM_ADMIN_SECOND_FACTOR(?::[^}]*)?\}/g;

/** A client secret's placeholder with a development default: `${ATRIUM_<CLIENT>_SECRET:dev-value}`. */
const CLIENT_SECRET_WITH_DEFAULT = /\$\{(ATRIUM_[A-Z0-9]+(?:_[A-Z0-9]+)*_SECRET):[^}]*\}/g;

/**
 * The people a realm would import: every user that is not a client's service account. In the realm file these
 * are the demo users, whose passwords the README publishes.
 */
export function peopleIn(realm: RealmDefinition): string[] {
  return (realm.users ?? [])
    .filter((user) => user.serviceAccountClientId === undefined)
    .map((user) => user.username);
}

/**
 * The realm file's text as it is imported outside development: without its people (only the clients' service
 * accounts stay), with the administrators' second factor required unless the import says otherwise, and with
 * no development default for any client secret, so a missing secret stops the import instead of importing a
 * known one.
 *
 * @throws Error when the text has no placeholder for the administrators' second factor (the rule would be lost).
 */
export function deploymentRealm(realmText: string): RealmDefinition {
  if (realmText.search(ADMIN_SECOND_FACTOR_PLACEHOLDER) === -1) {
    throw new Error('the realm file has no ${ATRIUM_ADMIN_SECOND_FACTOR} placeholder to require it by');
  }
  const text = realmText
    .replace(
      ADMIN_SECOND_FACTOR_PLACEHOLDER,
      `\${ATRIUM_ADMIN_SECOND_FACTOR:${ADMIN_SECOND_FACTOR_OUTSIDE_DEVELOPMENT}}`,
    )
    .replace(CLIENT_SECRET_WITH_DEFAULT, (_whole, variable: string) => `\${${variable}}`);
  const realm = JSON.parse(text) as RealmDefinition;
  realm.users = (realm.users ?? []).filter((user) => user.serviceAccountClientId !== undefined);
  return realm;
}

/**
 * Why a realm must not be imported outside development, or `undefined` when it may: it holds people (named),
 * who would sign in with the passwords the file gives them.
 */
export function refusalOf(realm: RealmDefinition): string | undefined {
  const people = peopleIn(realm);
  if (people.length === 0) return undefined;
  return (
    `the realm holds ${people.length === 1 ? 'a person' : 'people'} (${people.join(', ')}) whose passwords ` +
    'come with the file (the demo users of the development realm?): outside development import a realm without ' +
    'people (infra/compose/realm-atrium.json) and let people register, or create them in the admin console'
  );
}

if (import.meta.main) {
  const [file] = process.argv.slice(2);
  if (file === undefined) {
    console.error('usage: node deployment-realm.ts REALM_FILE');
    process.exit(2);
  }
  let realm: RealmDefinition;
  try {
    realm = JSON.parse(readFileSync(file, 'utf8')) as RealmDefinition;
  } catch (error) {
    console.error(
      `preflight: cannot read the realm ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exit(2);
  }
  const refusal = refusalOf(realm);
  if (refusal !== undefined) {
    console.error(`preflight: ${file}: ${refusal}`);
    process.exit(1);
  }
  console.log(`preflight: ${file} imports no person`);
}
