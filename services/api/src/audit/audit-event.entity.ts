import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** Something someone changed, written in the same transaction as the change itself. */
export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  indexes: [{ properties: ['occurredAt'] }],
  properties: {
    id: p.integer().primary().autoincrement(),
    actor: p.string().length(255),
    action: p.string().length(64),
    target: p.string().length(255),
    details: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
  },
});

export type AuditEvent = InferEntity<typeof AuditEvent>;
