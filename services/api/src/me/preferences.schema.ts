import { z } from 'zod';
import { ValidationFailedError } from '../common/errors/domain-errors.js';
import { THEMES } from './user-profile.entity.js';

/** Body of `PUT /api/me/preferences`; unknown fields are refused so that typos do not pass silently. */
export const preferencesSchema = z.strictObject({
  theme: z.enum(THEMES, { error: `must be one of ${THEMES.join(', ')}` }),
});

export type Preferences = z.infer<typeof preferencesSchema>;

/**
 * Validates a request body against a schema.
 *
 * @throws ValidationFailedError naming each bad field (unknown fields by their own name).
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const errors = result.error.issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), message: 'is not allowed' }));
    }
    if (issue.code === 'invalid_type' && issue.path.length === 0) {
      return [{ field: '(body)', message: 'must be a JSON object' }];
    }
    return [{ field: issue.path.join('.') || '(body)', message: issue.message }];
  });
  throw new ValidationFailedError(errors);
}
