import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * A feature bundle the shell can load, identified by its name. Created by its first published version;
 * the navigation fields follow the latest publish.
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
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type Remote = InferEntity<typeof Remote>;
