/**
 * The realm roles Atrium's own rules name, written once: the API's guards and the shell's checks import them
 * (`npm run contract` copies this file into the sdk as `@atrium/sdk/role-names`, and `npm test` fails when that
 * copy is stale). Dependency-free on purpose. The realm file (infra/keycloak) defines the roles themselves.
 */

/**
 * Administrators: create remotes and change their settings and owner, activate any version, read the
 * registry's history and the audit log. A remote whose required roles include it is one only administrators may
 * see (the admin console).
 */
export const ADMIN_ROLE = 'atrium-admin';

/** The deployment pipelines' service accounts: may publish versions of the remotes they own. */
export const PUBLISHER_ROLE = 'remote-publisher';

/** Developers (the dev realm's `ada`): may load a remote from a dev server in their own session (dev overrides). */
export const DEVELOPER_ROLE = 'atrium-developer';
