import { createHash } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';

/**
 * How many telemetry batches one person sent in one minute, counted by every replica together, so that
 * TELEMETRY_REPORTS_PER_MINUTE holds per person however many replicas serve them (report-rate-limiter.ts).
 * Written on PostgreSQL only (a SQLite API is one process and counts in memory); a minute's rows are deleted once
 * it is over. The person is kept only as {@link quotaPersonId}.
 */
export const TelemetryQuota = defineEntity({
  name: 'TelemetryQuota',
  tableName: 'telemetry_quota',
  properties: {
    /** Minutes since the Unix epoch (UTC): the window. */
    minute: p.integer().primary(),
    /** {@link quotaPersonId} of the person. */
    person: p.string().length(64).primary(),
    /** Batches the person sent in the window, refused ones included. */
    used: p.integer().default(0),
  },
});

export type TelemetryQuota = InferEntity<typeof TelemetryQuota>;

/**
 * Who sent, as telemetry_quota keeps it: SHA-256 (hex) of `quota:<sub>`, the verified token's subject (a random
 * UUID, so it cannot be turned back into one, and never equal to a canary_reporter's id of the same person).
 */
export function quotaPersonId(sub: string): string {
  return createHash('sha256').update(`quota:${sub}`, 'utf8').digest('hex');
}
