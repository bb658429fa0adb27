import { createHash } from 'node:crypto';
import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Remote } from '../registry/index.js';

/**
 * What one person reported about one side of a running canary (the canary's version, or the stable version
 * served beside it) during one window of ROLLBACK_PERSON_WINDOW_MINUTES: the rollback counts at most
 * ROLLBACK_MAX_LOADS_PER_PERSON of their loads per window, at their own failure rate, and counts how many
 * distinct people reported each side (telemetry.service.ts). So one account, or a person reloading all day,
 * is one voice, on every replica alike (the rows are shared, the cap applied when they are read).
 *
 * The person is kept only as {@link reporterId}, and only while the remote has a running canary: the rows are
 * deleted when it ends (and after TELEMETRY_RETENTION_DAYS at the latest). remote_health, the aggregates the
 * charts show, never holds who reported.
 */
export const CanaryReporter = defineEntity({
  name: 'CanaryReporter',
  tableName: 'canary_reporter',
  properties: {
    remote: () => p.manyToOne(Remote).primary().fieldName('remote_name').deleteRule('cascade'),
    version: p.string().length(64).primary(),
    /**
     * When the canary these reports count for started (ms since the Unix epoch): the rows of one canary only,
     * never those of an earlier one of the same remote, however soon it was started again.
     */
    canaryStartedAt: p.bigint('number').primary(),
    /** The window's first minute, in minutes since the Unix epoch (UTC), counted from the canary's start. */
    windowStart: p.integer().primary(),
    /** {@link reporterId} of the person. */
    reporter: p.string().length(64).primary(),
    /** Loads tried (succeeded or failed to load), as reported. */
    attempts: p.integer().default(0),
    /** Loads that failed to load or to render, as reported; never more than `attempts`. */
    failures: p.integer().default(0),
  },
});

export type CanaryReporter = InferEntity<typeof CanaryReporter>;

/**
 * Who reported, as canary_reporter keeps it: SHA-256 (hex) of `reporter:<remote>:<sub>`, the verified token's
 * subject. Subjects are random UUIDs, so it cannot be turned back into one; it differs per remote, so rows of
 * two remotes' canaries cannot be joined by person.
 */
export function reporterId(remote: string, sub: string): string {
  return createHash('sha256').update(`reporter:${remote}:${sub}`, 'utf8').digest('hex');
}
