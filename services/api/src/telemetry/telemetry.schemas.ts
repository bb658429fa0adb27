import { z } from 'zod';
import { remoteNameSchema, versionSchema } from '../registry/registry.schemas.js';
import { TELEMETRY_MAX_REPORTS, TELEMETRY_MAX_SAMPLES } from './telemetry-rules.js';

const count = z
  .int('must be a whole number')
  .min(0, 'must be 0 or more')
  .max(TELEMETRY_MAX_SAMPLES, `must be at most ${TELEMETRY_MAX_SAMPLES}`);
const durations = z
  .array(z.number().min(0, 'must be 0 or more').max(600_000, 'must be at most 600000 ms'))
  .max(TELEMETRY_MAX_SAMPLES, `must hold at most ${TELEMETRY_MAX_SAMPLES} samples`);

export const VITAL_NAMES = ['LCP', 'INP', 'CLS'] as const;
export const VITAL_RATINGS = ['good', 'needs-improvement', 'poor'] as const;

/** What the shell saw of one remote version since its last batch. */
const versionReportSchema = z
  .strictObject({
    remote: remoteNameSchema,
    version: versionSchema,
    loadMs: durations.meta({
      description: 'time to load (fetch, check, evaluate) of each successful load, in ms',
    }),
    renderMs: durations.meta({
      description: 'time from load to first render of each successful render, in ms',
    }),
    failures: z.strictObject({
      download: count.meta({ description: 'manifest or entry could not be fetched' }),
      integrity: count.meta({ description: 'a file did not match its SRI hash' }),
      timeout: count.meta({ description: 'loading took longer than the shell waits' }),
      render: count.meta({ description: 'the remote threw while rendering' }),
    }),
    vitals: z
      .array(z.strictObject({ name: z.enum(VITAL_NAMES), rating: z.enum(VITAL_RATINGS) }))
      .max(TELEMETRY_MAX_SAMPLES, `must hold at most ${TELEMETRY_MAX_SAMPLES} samples`)
      .meta({ description: 'web-vitals ratings of pages the remote rendered' }),
  })
  .meta({ id: 'VersionReport' });

export type VersionReport = z.output<typeof versionReportSchema>;

/** Body of `POST /api/telemetry`. */
export const telemetryBatchSchema = z
  .strictObject({
    reports: z
      .array(versionReportSchema)
      .min(1, 'must hold at least one report')
      .max(TELEMETRY_MAX_REPORTS, `must hold at most ${TELEMETRY_MAX_REPORTS} reports`),
  })
  .meta({ id: 'TelemetryBatch' });

export type TelemetryBatch = z.output<typeof telemetryBatchSchema>;

export const telemetryReceiptSchema = z
  .object({
    accepted: z.int().describe('reports added to the aggregates'),
    ignored: z
      .int()
      .describe('reports of a remote version the caller is not served now (e.g. a canary since rolled back)'),
  })
  .meta({ id: 'TelemetryReceipt' });

export type TelemetryReceipt = z.output<typeof telemetryReceiptSchema>;

const healthPointSchema = z.object({
  minute: z.iso.datetime(),
  attempts: z.int(),
  failures: z.int(),
  failuresByKind: z.object({ download: z.int(), integrity: z.int(), timeout: z.int(), render: z.int() }),
  loadMsMean: z.number().nullable(),
  renderMsMean: z.number().nullable(),
  poorVitals: z.int().describe('LCP, INP and CLS samples rated poor'),
  vitals: z.int().describe('LCP, INP and CLS samples'),
});

export const remoteHealthSchema = z
  .object({
    remote: z.string(),
    since: z.iso.datetime(),
    versions: z.array(z.object({ version: z.string(), points: z.array(healthPointSchema) })),
  })
  .meta({ id: 'RemoteHealth' });

export type RemoteHealthDoc = z.output<typeof remoteHealthSchema>;

export const healthQuerySchema = z.coerce
  .number()
  .int('must be a whole number of minutes')
  .min(5, 'must be at least 5')
  .max(10_080, 'must be at most 10080 (a week)')
  .default(180);
