import { z } from 'zod';
import { remoteNameSchema, versionSchema } from '../registry/index.js';
import { TELEMETRY_MAX_ATTEMPTS, TELEMETRY_MAX_REPORTS, TELEMETRY_MAX_SAMPLES } from './telemetry-rules.js';

const count = z
  .int('must be a whole number')
  .min(0, 'must be 0 or more')
  .max(TELEMETRY_MAX_ATTEMPTS, `must be at most ${TELEMETRY_MAX_ATTEMPTS}`);
const durations = z
  .array(z.number().min(0, 'must be 0 or more').max(600_000, 'must be at most 600000 ms'))
  .max(TELEMETRY_MAX_ATTEMPTS, `must hold at most ${TELEMETRY_MAX_ATTEMPTS} samples`);

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
  // What one page can have seen: a bounded number of attempts, and a render (or its failure) only after a load.
  .superRefine((report, ctx) => {
    const { download, integrity, timeout, render } = report.failures;
    const loads = report.loadMs.length;
    if (loads + download + integrity + timeout > TELEMETRY_MAX_ATTEMPTS) {
      ctx.addIssue({
        code: 'custom',
        path: ['failures'],
        message: `loads and failed loads together must be at most ${TELEMETRY_MAX_ATTEMPTS} (one page's worth)`,
      });
    }
    if (render > loads) {
      ctx.addIssue({
        code: 'custom',
        path: ['failures', 'render'],
        message: 'must not exceed the loads that succeeded (loadMs): only a loaded remote can fail to render',
      });
    }
    if (report.renderMs.length > loads) {
      ctx.addIssue({
        code: 'custom',
        path: ['renderMs'],
        message: 'must not hold more samples than loadMs: only a loaded remote renders',
      });
    }
  })
  .meta({ id: 'VersionReport' });

export type VersionReport = z.output<typeof versionReportSchema>;

/** Body of `POST /api/telemetry`. */
export const telemetryBatchSchema = z
  .strictObject({
    reports: z
      .array(versionReportSchema)
      .min(1, 'must hold at least one report')
      .max(TELEMETRY_MAX_REPORTS, `must hold at most ${TELEMETRY_MAX_REPORTS} reports`)
      .superRefine((reports, ctx) => {
        const seen = new Set<string>();
        reports.forEach(({ remote, version }, index) => {
          const key = `${remote}@${version}`;
          if (seen.has(key)) {
            ctx.addIssue({
              code: 'custom',
              path: [index],
              message: `repeats ${key}: a batch holds one report per remote version`,
            });
          }
          seen.add(key);
        });
      }),
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

const canarySideSchema = z
  .object({
    attempts: z
      .number()
      .describe("loads tried since the canary started, each person's share capped per window"),
    failures: z
      .number()
      .describe('of those, loads that failed to load or to render (a capped share may be fractional)'),
    reporters: z.int().describe('distinct people who reported this side'),
  })
  .meta({ id: 'CanarySideTally' });

const canaryHealthSchema = z
  .object({
    version: z.string().describe('the canary version'),
    stableVersion: z.string(),
    since: z.iso.datetime().describe('the start of the first window counted (the canary started in it)'),
    canary: canarySideSchema,
    stable: canarySideSchema,
    needs: z
      .object({ loads: z.int(), people: z.int() })
      .describe('what each side needs before a rollback (ROLLBACK_MIN_SAMPLES, ROLLBACK_MIN_REPORTERS)'),
    reason: z.string().describe("the automatic rollback's verdict on these numbers, in one sentence"),
  })
  .meta({ id: 'CanaryHealth' });

export type CanaryHealthDoc = z.output<typeof canaryHealthSchema>;

export const remoteHealthSchema = z
  .object({
    remote: z.string(),
    since: z.iso.datetime(),
    versions: z.array(z.object({ version: z.string(), points: z.array(healthPointSchema) })),
    canary: canaryHealthSchema
      .nullable()
      .describe(
        'the running canary and the numbers the automatic rollback judges it on; null when none runs',
      ),
  })
  .meta({ id: 'RemoteHealth' });

export type RemoteHealthDoc = z.output<typeof remoteHealthSchema>;

export const healthQuerySchema = z.coerce
  .number()
  .int('must be a whole number of minutes')
  .min(5, 'must be at least 5')
  .max(10_080, 'must be at most 10080 (a week)')
  .default(180);
