import { ACCOUNT_ENTITIES } from './account/index.js';
import { AUDIT_ENTITIES } from './audit/index.js';
import { AUTH_ENTITIES } from './auth/index.js';
import { ME_ENTITIES } from './me/index.js';
import { REGISTRY_ENTITIES } from './registry/index.js';
import { ROLLOUT_ENTITIES } from './rollout/index.js';
import { TELEMETRY_ENTITIES } from './telemetry/index.js';

/**
 * Every entity the ORM knows, module by module: each module registers its own with the running API
 * (`MikroOrmModule.forFeature`, collected by the database module's `autoLoadEntities`); this list is for the
 * tools that run without the API, `npm run migration:create` (create-migration.ts) first. entities.spec.ts
 * proves it is exactly what the modules register.
 */
export const ENTITIES = [
  ...ME_ENTITIES,
  ...REGISTRY_ENTITIES,
  ...ROLLOUT_ENTITIES,
  ...TELEMETRY_ENTITIES,
  ...AUDIT_ENTITIES,
  ...ACCOUNT_ENTITIES,
  ...AUTH_ENTITIES,
];
