import type { ConfigGroup } from '@atrium/api/config-variables';

/**
 * The variables Keycloak reads: its bootstrap administrator (keycloak.ts for `npm start` and `npm test`, the
 * `keycloak` service of docker compose) and the realm file's placeholders (realm-atrium.json, resolved when the
 * realm is imported). The defaults and development values are the realm file's own (`${NAME:default}`):
 * infra/contract/config-variables.spec.ts holds every placeholder to a row with that value.
 */
export const KEYCLOAK_VARIABLE_GROUPS: readonly ConfigGroup[] = [
  {
    title: 'Keycloak',
    readBy: 'infra/keycloak',
    about:
      'Except the bootstrap administrator, read when Keycloak imports the realm (infra/keycloak/realm-atrium.json), ' +
      'i.e. only when its data folder is first created: delete .data/keycloak to apply a change (docker compose: ' +
      'its keycloak-db-data volume).',
    variables: [
      {
        name: 'KEYCLOAK_ADMIN_USERNAME',
        purpose: 'Bootstrap administrator of a fresh Keycloak (master realm): the username.',
        default: 'admin',
      },
      {
        name: 'KEYCLOAK_ADMIN_PASSWORD',
        purpose: "The bootstrap administrator's password.",
        secret: true,
        developmentValue: 'admin',
      },
      {
        name: 'ATRIUM_DEPLOYER_SECRET',
        purpose:
          "Client secret of the atrium-deployer service account, the feature teams' pipeline, which publishes " +
          'and activates the remotes it owns (the release CLI signs in with it).',
        secret: true,
        developmentValue: 'atrium-deployer-dev-secret',
      },
      {
        name: 'ATRIUM_PLATFORM_SECRET',
        purpose:
          "Client secret of the atrium-platform service account, the platform's pipeline: it owns and publishes " +
          'the admin console and creates the remotes (`npm start`, compose `publish`), so it holds atrium-admin.',
        secret: true,
        developmentValue: 'atrium-platform-dev-secret',
      },
      {
        name: 'ATRIUM_ACCOUNT_ADMIN_SECRET',
        purpose:
          "Client secret of atrium-account-admin, the API's client for people's own accounts (the same " +
          "value as the API's KEYCLOAK_ADMIN_CLIENT_SECRET).",
        secret: true,
        developmentValue: 'atrium-account-admin-dev-secret',
      },
      {
        name: 'ATRIUM_ACCESS_TOKEN_LIFESPAN',
        purpose: 'Access-token lifespan in seconds (`npm test` uses 60 to watch renewals).',
        default: '300',
      },
      {
        name: 'ATRIUM_ADMIN_SECOND_FACTOR',
        purpose:
          'CONDITIONAL requires a second factor (authenticator-app code; a passkey sign-in counts as two) of ' +
          "every atrium-admin at sign-in; DISABLED (the development realm's default) leaves it to each person. " +
          'Afterwards, switch it in the admin console (Authentication, atrium browser). Only `npm start` reads ' +
          'it: the realm docker compose (without the dev profile) and Kubernetes import requires the second factor ' +
          'and neither passes this variable (infra/keycloak/deployment-realm.ts).',
        default: 'DISABLED',
      },
    ],
  },
  {
    title: "Keycloak: the realm's mail server",
    readBy: 'infra/keycloak',
    about:
      "Where Keycloak sends sign-up verification and password-reset mail (the realm's smtpServer, read at import " +
      'like the values above). Unset: the local mail catcher. `npm start` always uses the MailDev it runs itself ' +
      '(SMTP 127.0.0.1:1025, inbox http://127.0.0.1:1080); docker compose uses its `maildev` service (inbox ' +
      'http://localhost:1080). A real provider: its host, port 587, AUTH true with USER and PASSWORD, STARTTLS true.',
    variables: [
      {
        name: 'ATRIUM_SMTP_HOST',
        purpose: "The mail server's host (the realm's default: localhost; docker compose: maildev).",
        example: 'maildev',
      },
      { name: 'ATRIUM_SMTP_PORT', purpose: 'Its port.', default: '1025' },
      { name: 'ATRIUM_SMTP_FROM', purpose: 'The sender of the mail.', default: 'no-reply@atrium.test' },
      { name: 'ATRIUM_SMTP_AUTH', purpose: 'true: sign in to the server as USER.', default: 'false' },
      {
        name: 'ATRIUM_SMTP_USER',
        purpose: 'The user Keycloak signs in to the server as.',
        example: 'atrium',
      },
      { name: 'ATRIUM_SMTP_PASSWORD', purpose: "That user's password.", secret: true },
      {
        name: 'ATRIUM_SMTP_STARTTLS',
        purpose: 'true: upgrade the connection with STARTTLS.',
        default: 'false',
      },
      { name: 'ATRIUM_SMTP_SSL', purpose: 'true: connect over TLS from the start.', default: 'false' },
    ],
  },
  {
    title: "Keycloak's distribution",
    readBy: 'infra/keycloak',
    variables: [
      {
        name: 'ATRIUM_MAVEN_REPOSITORY',
        purpose:
          'Maven repository the Keycloak distribution is downloaded from, for `npm start` and `npm test` (a mirror ' +
          'of Maven Central).',
        default: 'https://repo.maven.apache.org/maven2',
      },
    ],
  },
];
