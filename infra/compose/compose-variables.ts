import type { ConfigGroup } from '@atrium/api/config-variables';

/**
 * The variables only docker-compose.yml reads (the others it passes on are described with what reads them).
 * Their development values are compose.dev.env's, which infra/contract/config-variables.spec.ts holds them to.
 */
export const COMPOSE_VARIABLES: ConfigGroup = {
  title: 'docker compose only',
  readBy: 'docker-compose.yml',
  about:
    'Its secrets have no default: compose stops when one is missing, and `preflight` refuses a development value ' +
    'outside the dev profile (docs/deploy.md#production-secrets). The development values are in compose.dev.env.',
  variables: [
    {
      name: 'POSTGRES_PASSWORD',
      purpose:
        'Password of the role `atrium` the API and the migrations log in as, which owns only the schema ' +
        '`atrium`; URL-safe, it is part of their DATABASE_URL.',
      secret: true,
      developmentValue: 'atrium',
    },
    {
      name: 'POSTGRES_SUPERUSER_PASSWORD',
      purpose:
        "Password of the API's PostgreSQL superuser `postgres`: only the database holds it, for its first-start " +
        'script that creates the role (infra/postgres/db-bootstrap.sql).',
      secret: true,
      developmentValue: 'postgres',
    },
    {
      name: 'KEYCLOAK_DB_PASSWORD',
      purpose: "Password of Keycloak's own PostgreSQL.",
      secret: true,
      developmentValue: 'keycloak',
    },
    {
      name: 'ATRIUM_REALM_FILE',
      purpose:
        'The realm file Keycloak imports (and `preflight` checks first). The default is without people and ' +
        "requires the administrators' second factor; compose.dev.env names the development realm " +
        '(./infra/keycloak/realm-atrium.json, demo users alice and ada), which `preflight` refuses outside the ' +
        'dev profile like any realm that holds a person.',
      default: './infra/compose/realm-atrium.json',
    },
    {
      name: 'COMPOSE_PROFILES',
      purpose:
        "Compose's own: the profiles to run. `dev` lets `preflight` accept the development values (set only by " +
        'compose.dev.env); `observability` adds Prometheus, Grafana, an OpenTelemetry Collector and Jaeger.',
      example: 'observability',
    },
  ],
};
