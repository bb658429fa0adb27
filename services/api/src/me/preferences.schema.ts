import { z } from 'zod';
import { THEMES } from './user-profile.entity.js';

/** Body of `PUT /api/me/preferences`; unknown fields are refused so that typos do not pass silently. */
export const preferencesSchema = z
  .strictObject({
    theme: z.enum(THEMES, { error: `must be one of ${THEMES.join(', ')}` }),
  })
  .meta({ id: 'Preferences' });

export type Preferences = z.infer<typeof preferencesSchema>;

/** Response of `/api/me`, for the OpenAPI document. */
export const meDocumentSchema = z.object({
  sub: z.string(),
  username: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  roles: z.array(z.string()),
  preferences: preferencesSchema,
});
