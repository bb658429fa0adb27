import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { MAX_NAME_LENGTH } from '../auth/access-token.js';

/** Something someone changed, written in the same transaction as the change itself. */
export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  indexes: [{ properties: ['occurredAt'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    // `AuthenticatedUser.actor`, bounded when the token is read.
    actor: p.string().length(MAX_NAME_LENGTH),
    action: p.string().length(64),
    target: p.string().length(255),
    details: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
  },
});

export type AuditEvent = InferEntity<typeof AuditEvent>;
