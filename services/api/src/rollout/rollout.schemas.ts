import { z } from 'zod';
import { roleListSchema, versionSchema } from '../registry/index.js';
import { ROLLOUT_STATES } from './rollout.entity.js';

const percentSchema = z
  .int('must be a whole percentage')
  .min(0, 'must be 0 or more')
  .max(100, 'must be 100 or less')
  .meta({
    description:
      'share of people who get the canary: those whose bucket, SHA-256 of "<remote>:<sub>" (first 4 bytes, ' +
      'big-endian) mod 100, is below it',
  });

const canaryRolesSchema = roleListSchema.meta({
  description: 'realm roles whose holders all get the canary (a Keycloak group grants roles to its members)',
});

/** Body of `POST /api/remotes/{name}/rollout`: which published version, to whom. */
export const startRolloutSchema = z
  .strictObject({
    version: versionSchema,
    percent: percentSchema.optional(),
    roles: canaryRolesSchema.optional(),
  })
  .meta({ id: 'StartRollout' });

export type StartRollout = z.output<typeof startRolloutSchema>;

/** Body of `PATCH /api/remotes/{name}/rollout`: widen (or narrow) the running canary's audience. */
export const changeRolloutSchema = z
  .strictObject({ percent: percentSchema.optional(), roles: canaryRolesSchema.optional() })
  .refine((body) => Object.keys(body).length > 0, 'must change at least one of percent, roles')
  .meta({ id: 'ChangeRollout' });

export type ChangeRollout = z.output<typeof changeRolloutSchema>;

const reasonSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(500, 'must be at most 500 characters')
  .regex(/^\P{Cc}*$/u, 'must not contain control characters');

/** Body of `POST /api/remotes/{name}/rollout/abort` (optional): why, for the audit log. */
export const abortRolloutSchema = z
  .strictObject({ reason: reasonSchema.optional() })
  .meta({ id: 'AbortRollout' });

export type AbortRollout = z.output<typeof abortRolloutSchema>;

export const rolloutDocSchema = z
  .object({
    remote: z.string(),
    version: z.string().describe('the canary version'),
    stableVersion: z.string().nullable().describe('the active version everybody else gets'),
    percent: z.int(),
    roles: z.array(z.string()),
    state: z.enum(ROLLOUT_STATES),
    startedBy: z.string(),
    startedAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    endedBy: z.string().nullable(),
    endedAt: z.iso.datetime().nullable(),
    reason: z.string().nullable().describe('why it ended: the operator, or the automatic rollback'),
  })
  .meta({ id: 'Rollout' });

export type RolloutDoc = z.output<typeof rolloutDocSchema>;

export const rolloutStateSchema = z.object({ rollout: rolloutDocSchema.nullable() });
