import type { ConfigGroup } from '@atrium/api/config-variables';

/**
 * The variables the release CLI reads (publish-release.ts: `npm run release`, `rollout` and `rollback` of a
 * remote, docker compose's `publish`); defaults are those of the local `npm start` stack, which
 * infra/contract/config-variables.spec.ts holds to publish-release.ts's own.
 */
export const RELEASE_CLI_VARIABLES: ConfigGroup = {
  title: 'Release CLI',
  readBy: 'tools/release-cli',
  about:
    'The release steps of every remote (`npm run release|rollout|rollback --workspace remotes/<name>`), ' +
    "`npm run types -- pull`, docker compose's `publish` and `npm run compat` (as the platform's client). The " +
    "clients' secrets are Keycloak's above (ATRIUM_DEPLOYER_SECRET, ATRIUM_PLATFORM_SECRET).",
  variables: [
    { name: 'ATRIUM_API_URL', purpose: 'Where the CLI finds the API.', default: 'http://localhost:3000' },
    {
      name: 'ATRIUM_ISSUER_URL',
      purpose: 'Where it gets its tokens: the issuer.',
      default: 'http://localhost:8080/realms/atrium',
    },
    {
      name: 'ATRIUM_DEPLOYER_CLIENT_ID',
      purpose:
        "The client the CLI publishes as: it must be the remote's owner (ATRIUM_DEPLOYER_SECRET is its secret).",
      default: 'atrium-deployer',
    },
    {
      name: 'ATRIUM_PLATFORM_CLIENT_ID',
      purpose:
        "The platform's client, which creates remotes and publishes those it owns (ATRIUM_PLATFORM_SECRET is its " +
        'secret).',
      default: 'atrium-platform',
    },
    {
      name: 'ATRIUM_RELEASE_STORE_DIR',
      purpose: "Where the CLI writes releases (relative paths from the repository's root).",
      default: '.data/releases',
    },
    {
      name: 'ATRIUM_RELEASE_STORE_URL',
      purpose: "The URL browsers load the releases from: an origin the API's ALLOWED_REMOTE_ORIGINS lists.",
      default: 'http://localhost:4100',
    },
    {
      name: 'ATRIUM_RELEASE_RETENTION_HOURS',
      purpose:
        'How long `npm run release -- prune` keeps a release after it was published or withdrawn: as long as a ' +
        'page opened before may stay open and load its files.',
      default: '168',
    },
  ],
};
