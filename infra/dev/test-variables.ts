import type { ConfigGroup } from '@atrium/api/config-variables';

/** The variables `npm test` reads to find its system parts (system-parts.ts). */
export const TEST_VARIABLES: ConfigGroup = {
  title: 'Tests',
  readBy: 'infra/dev',
  about: '`npm test` finds the parts its tiers run against with these.',
  variables: [
    {
      name: 'TEST_POSTGRES_URL',
      purpose:
        'PostgreSQL server the integration and browser tests create their databases on (they drop them ' +
        "afterwards). Unset: the server on 127.0.0.1:5432 when it answers, else a PostgreSQL of the run's own " +
        'from the npm registry.',
      example: 'postgres://postgres@127.0.0.1:5432/postgres',
    },
    {
      name: 'ATRIUM_TEST_POSTGRES',
      purpose:
        "`embedded` always starts the run's own PostgreSQL (free loopback port, removed afterwards); `auto` " +
        'uses a configured or local server first.',
      default: 'auto',
    },
    {
      name: 'CHROMIUM_PATH',
      purpose:
        'Chromium the browser tests drive (never downloaded by the test tool). Unset: /usr/bin/chromium, ' +
        'installed with apt-get when missing.',
      example: '/usr/bin/chromium',
    },
  ],
};
