import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { MAX_NAME_LENGTH } from '../auth/index.js';

/**
 * Something someone changed, written in the same transaction as the change itself. Read newest first, a page
 * after the last entry seen (keyset on occurredAt, id), optionally filtered by one column: each index starts
 * with the filtered column and ends with the order, so a page deep in a million rows is one short range scan.
 */
export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  indexes: [
    { name: 'audit_event_occurred_at_id_index', properties: ['occurredAt', 'id'] },
    { name: 'audit_event_actor_occurred_at_id_index', properties: ['actor', 'occurredAt', 'id'] },
    { name: 'audit_event_action_occurred_at_id_index', properties: ['action', 'occurredAt', 'id'] },
    { name: 'audit_event_target_occurred_at_id_index', properties: ['target', 'occurredAt', 'id'] },
  ],
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
