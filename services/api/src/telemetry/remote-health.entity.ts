import { defineEntity, type InferEntity, p } from '@mikro-orm/core';
import { Remote } from '../registry/index.js';

/** Upper bounds (ms) of the latency histograms' buckets; a last bucket takes everything slower. */
export const LATENCY_BUCKETS_MS = [100, 300, 1000, 3000, 10000] as const;

const counter = () => p.integer().default(0);

/**
 * Field health of one version of a remote during one minute, summed over everybody who loaded it: counters
 * and histogram buckets only, never who reported them (no user id, address or page URL), so the table grows
 * with versions and minutes, not with people or traffic. Reports are added up in memory and added to the rows
 * once a second (telemetry.service.ts); rows older than TELEMETRY_RETENTION_DAYS are deleted.
 */
export const RemoteHealth = defineEntity({
  name: 'RemoteHealth',
  tableName: 'remote_health',
  // Retention deletes by minute.
  indexes: [{ properties: ['minute'] }],
  properties: {
    remote: () => p.manyToOne(Remote).primary().fieldName('remote_name').deleteRule('cascade'),
    version: p.string().length(64).primary(),
    /** Minutes since the Unix epoch (UTC): the same integer on both database drivers. */
    minute: p.integer().primary(),
    /** Loads that succeeded (the remote's module was fetched, checked and evaluated). */
    loads: counter(),
    failedDownload: counter(),
    failedIntegrity: counter(),
    failedTimeout: counter(),
    renderErrors: counter(),
    loadMsSum: p.double().default(0),
    loadLe100: counter(),
    loadLe300: counter(),
    loadLe1000: counter(),
    loadLe3000: counter(),
    loadLe10000: counter(),
    loadSlower: counter(),
    renders: counter(),
    renderMsSum: p.double().default(0),
    renderLe100: counter(),
    renderLe300: counter(),
    renderLe1000: counter(),
    renderLe3000: counter(),
    renderLe10000: counter(),
    renderSlower: counter(),
    lcpGood: counter(),
    lcpNeedsImprovement: counter(),
    lcpPoor: counter(),
    inpGood: counter(),
    inpNeedsImprovement: counter(),
    inpPoor: counter(),
    clsGood: counter(),
    clsNeedsImprovement: counter(),
    clsPoor: counter(),
  },
});

export type RemoteHealth = InferEntity<typeof RemoteHealth>;
