import { z } from 'zod';
import { ADMIN_ROLE } from '../auth/index.js';
import { THEMES } from './user-profile.entity.js';

/** Body of `PUT /api/me/preferences`; unknown fields are refused so that typos do not pass silently. */
export const preferencesSchema = z
  .strictObject({
    theme: z.enum(THEMES, { error: `must be one of ${THEMES.join(', ')}` }),
  })
  .meta({ id: 'Preferences', example: { theme: 'dark' } });

export type Preferences = z.infer<typeof preferencesSchema>;

/** Response of `/api/me`, for the OpenAPI document. */
export const meDocumentSchema = z
  .object({
    sub: z.string(),
    username: z.string(),
    name: z.string().nullable().describe('display name, null when the identity provider has none'),
    email: z.string().nullable().describe('e-mail address, null when the identity provider released none'),
    roles: z.array(z.string()),
    preferences: preferencesSchema,
  })
  .meta({
    id: 'Me',
    description: 'Who the API thinks the caller is (from the token), with their stored preferences',
    example: {
      sub: '1c3b1f2e-7d59-4f57-a7c1-0d7b6cf0a1aa',
      username: 'ada',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      roles: [ADMIN_ROLE],
      preferences: { theme: 'system' },
    },
  });
