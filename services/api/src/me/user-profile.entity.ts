import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** The themes a user can pick; `system` follows the operating system. */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/**
 * A signed-in user's profile. The id is the token's `sub`, so a profile needs no lookup table; the
 * identity fields are a cache of the latest token claims, the preferences are owned here.
 */
export const UserProfile = defineEntity({
  name: 'UserProfile',
  tableName: 'user_profile',
  properties: {
    id: p.string().length(255).primary(),
    username: p.string().length(255),
    email: p.string().length(320).nullable(),
    name: p.string().length(255).nullable(),
    theme: p.enum(THEMES).default('system'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type UserProfile = InferEntity<typeof UserProfile>;
