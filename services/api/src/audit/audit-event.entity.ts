import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { MAX_NAME_LENGTH } from '../auth/index.js';

/**
 * Something someone changed, written in the same transaction as the change itself. Read newest first, a page
 * after the last entry seen (keyset on occurredAt, id), optionally filtered by one column: each index starts
 * with the filtered column and ends with the order, so a page deep in a million rows is one short range scan.
 * `remote` is `details.remote`, kept in a column of its own to be filtered that way.
 */
export const AuditEvent = defineEntity({
  name: 'AuditEvent',
  tableName: 'audit_event',
  indexes: [
    { name: 'audit_event_occurred_at_id_index', properties: ['occurredAt', 'id'] },
    { name: 'audit_event_actor_occurred_at_id_index', properties: ['actor', 'occurredAt', 'id'] },
    { name: 'audit_event_action_occurred_at_id_index', properties: ['action', 'occurredAt', 'id'] },
    { name: 'audit_event_target_occurred_at_id_index', properties: ['target', 'occurredAt', 'id'] },
    { name: 'audit_event_remote_occurred_at_id_index', properties: ['remote', 'occurredAt', 'id'] },
  ],
  properties: {
    id: p.integer().primary().autoincrement(),
    // `AuthenticatedUser.actor`, bounded when the token is read.
    actor: p.string().length(MAX_NAME_LENGTH),
    // `AuthenticatedUser.name` (the token's `name`, bounded when the token is read); null for a client.
    actorName: p.string().length(MAX_NAME_LENGTH).nullable(),
    action: p.string().length(64),
    target: p.string().length(255),
    // A remote's name (REMOTE_NAME_PATTERN: at most 40 characters); null for an entry about no remote.
    remote: p.string().length(40).nullable(),
    details: p.json<Record<string, unknown>>(),
    occurredAt: p.datetime(),
  },
});

export type AuditEvent = InferEntity<typeof AuditEvent>;
