import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { MAX_EMAIL_LENGTH, MAX_NAME_LENGTH, MAX_SUBJECT_LENGTH } from '../auth/index.js';

/** The themes a user can pick; `system` follows the operating system. */
export const THEMES = ['system', 'light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

/**
 * A signed-in user's profile. The id is the token's `sub`, so a profile needs no lookup table; the
 * identity fields are a cache of the latest token claims, the preferences are owned here. The widths are
 * the bounds `toAuthenticatedUser` applies to those claims, so no token can carry a value too long to store.
 */
export const UserProfile = defineEntity({
  name: 'UserProfile',
  tableName: 'user_profile',
  properties: {
    id: p.string().length(MAX_SUBJECT_LENGTH).primary(),
    username: p.string().length(MAX_NAME_LENGTH),
    email: p.string().length(MAX_EMAIL_LENGTH).nullable(),
    name: p.string().length(MAX_NAME_LENGTH).nullable(),
    theme: p.enum(THEMES).default('system'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export type UserProfile = InferEntity<typeof UserProfile>;
