import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { MAX_NAME_LENGTH } from '../auth/index.js';
import { Remote } from '../registry/index.js';

/** Where a remote's canary stands: running, or how it ended. */
export const ROLLOUT_STATES = ['running', 'promoted', 'aborted'] as const;
export type RolloutState = (typeof ROLLOUT_STATES)[number];

/**
 * A remote's canary: a published version served, instead of the active (stable) one, to a share of people
 * and to holders of named roles (see cohort.ts). One row per remote: the latest canary, running or ended,
 * so the admin console can show how the last one ended; the audit log keeps every step.
 */
export const RemoteRollout = defineEntity({
  name: 'RemoteRollout',
  tableName: 'remote_rollout',
  properties: {
    remote: () => p.manyToOne(Remote).primary().fieldName('remote_name').deleteRule('cascade'),
    version: p.string().length(64),
    percent: p.integer(),
    roles: p.json<string[]>(),
    state: p.string().length(16).$type<RolloutState>(),
    // `AuthenticatedUser.actor`, bounded when the token is read.
    startedBy: p.string().length(MAX_NAME_LENGTH),
    startedAt: p.datetime(),
    updatedAt: p.datetime(),
    endedBy: p.string().length(MAX_NAME_LENGTH).nullable(),
    endedAt: p.datetime().nullable(),
    /** Why it ended: the operator's words, or the automatic rollback's statistics. */
    reason: p.string().length(500).nullable(),
  },
});

export type RemoteRollout = InferEntity<typeof RemoteRollout>;
