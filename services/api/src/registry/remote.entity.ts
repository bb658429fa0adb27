import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { MAX_NAME_LENGTH } from '../auth/index.js';

/**
 * A feature bundle the shell can load, identified by its name. An administrator creates it and sets who may
 * see it and where it appears; its owner, a deployer client, publishes and activates its versions.
 */
export const Remote = defineEntity({
  name: 'Remote',
  tableName: 'remote',
  properties: {
    name: p.string().length(40).primary(),
    title: p.string().length(80),
    path: p.string().length(100).unique(),
    navOrder: p.integer().default(100),
    requiredRoles: p.json<string[]>(),
    // The Keycloak client id (a token's `azp`) of the deployer that may publish and activate its versions.
    owner: p.string().length(MAX_NAME_LENGTH),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type Remote = InferEntity<typeof Remote>;
