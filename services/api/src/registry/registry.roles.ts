/** Realm role of the deployment pipelines' service accounts: may publish versions of the remotes they own. */
export const PUBLISHER_ROLE = 'remote-publisher';
/**
 * Realm role of administrators: create remotes and change their settings and owner, activate any version,
 * read the registry's history.
 */
export const ADMIN_ROLE = 'atrium-admin';
