// Where the browser journeys find the dev and test stack: its fixed ports (infra/dev/stack.ts, `npm start`).

/** Keycloak's origin. */
export const KEYCLOAK_URL = 'http://localhost:8080';

/** The atrium realm's issuer. */
export const ISSUER = `${KEYCLOAK_URL}/realms/atrium`;

/** The atrium realm's token endpoint. */
export const TOKEN_ENDPOINT = `${ISSUER}/protocol/openid-connect/token`;

/** The API's public URL. */
export const API_URL = 'http://localhost:3000';

/** The shell's origin. */
export const SHELL_URL = 'http://localhost:4000';

/** The shell's registered sign-in callback. */
export const SHELL_CALLBACK = `${SHELL_URL}/auth/callback`;

/** The release store, where published remotes are served from. */
export const RELEASE_STORE_URL = 'http://localhost:4100';
