import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/** The streams of Keycloak events the API copies into its audit log. */
export const KEYCLOAK_EVENT_STREAMS = ['events', 'admin-events'] as const;
export type KeycloakEventStream = (typeof KEYCLOAK_EVENT_STREAMS)[number];

/**
 * How far the audit log has copied one of Keycloak's event streams: the newest event time copied and the
 * keys of the events at exactly that time (Keycloak's times are milliseconds, several events can share
 * one). Written in the same transaction as the audit events it accounts for, so a restart neither loses
 * nor repeats an event.
 */
export const KeycloakEventCursor = defineEntity({
  name: 'KeycloakEventCursor',
  tableName: 'keycloak_event_cursor',
  properties: {
    stream: p.enum(KEYCLOAK_EVENT_STREAMS).primary(),
    // Epoch milliseconds of the newest copied event.
    lastTime: p.bigint('number'),
    lastKeys: p.json<string[]>(),
    updatedAt: p.datetime(),
  },
});

export type KeycloakEventCursor = InferEntity<typeof KeycloakEventCursor>;
