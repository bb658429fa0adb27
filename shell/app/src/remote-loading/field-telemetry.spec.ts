import { ApiProblemError } from '@atrium/sdk';
import {
  TELEMETRY_BODY_LIMIT_BYTES,
  TELEMETRY_MAX_REPORTS,
  TELEMETRY_MAX_SAMPLES,
} from '@atrium/sdk/telemetry-rules';
import { describe, expect, it, vi } from 'vitest';
import { createFieldTelemetry, type VersionReport } from './field-telemetry';

const mark = (event: string, remote: string, version: string, kind?: string) => ({
  name: `atrium:remote-${event}:${remote}`,
  startTime: 0,
  detail: [version, kind],
});

describe('field telemetry', () => {
  it('turns the slot marks into per-version reports: load and render times, failures by kind, vitals', async () => {
    const sent: VersionReport[][] = [];
    const telemetry = createFieldTelemetry((reports) => {
      sent.push(reports);
      return Promise.resolve();
    });
    telemetry.recordMark({ ...mark('load', 'profile', '1.2.0'), startTime: 100 });
    telemetry.recordMark({ ...mark('loaded', 'profile', '1.2.0'), startTime: 350.4 });
    telemetry.recordMark({ ...mark('rendered', 'profile', '1.2.0'), startTime: 410 });
    telemetry.recordVital({ name: 'LCP', rating: 'good' });
    telemetry.recordVital({ name: 'TTFB', rating: 'poor' });
    telemetry.recordMark({ ...mark('load', 'leave', '2.0.0'), startTime: 1000 });
    telemetry.recordMark({ ...mark('failed', 'leave', '2.0.0', 'timeout'), startTime: 11_000 });
    telemetry.recordMark({ ...mark('failed', 'leave', '2.0.0', 'refused'), startTime: 11_500 });
    telemetry.recordMark({ ...mark('failed', 'leave', '2.0.0'), startTime: 12_000 });
    telemetry.recordMark({ ...mark('failed', 'profile', '1.2.0', 'render'), startTime: 13_000 });
    telemetry.recordMark({ name: 'atrium:shell-ready', startTime: 1, detail: null });

    await telemetry.flush();
    expect(sent).toEqual([
      [
        {
          remote: 'profile',
          version: '1.2.0',
          loadMs: [250],
          renderMs: [60],
          failures: { download: 0, integrity: 0, timeout: 0, render: 1 },
          vitals: [{ name: 'LCP', rating: 'good' }],
        },
        {
          remote: 'leave',
          version: '2.0.0',
          loadMs: [],
          renderMs: [],
          failures: { download: 1, integrity: 1, timeout: 1, render: 0 },
          vitals: [],
        },
      ],
    ]);
    // Nothing new: nothing sent.
    await telemetry.flush();
    expect(sent).toHaveLength(1);
  });

  it('keeps every batch within the API bounds and sends the rest next time', async () => {
    const sizes: number[] = [];
    const batches: VersionReport[][] = [];
    const telemetry = createFieldTelemetry((reports) => {
      sizes.push(new TextEncoder().encode(JSON.stringify({ reports })).length);
      batches.push(reports);
      return Promise.resolve();
    });
    for (let remote = 0; remote < 30; remote += 1) {
      for (let load = 0; load < 150; load += 1) {
        telemetry.recordMark({ ...mark('load', `r${remote}`, '1.0.0'), startTime: load * 10_000 });
        telemetry.recordMark({ ...mark('loaded', `r${remote}`, '1.0.0'), startTime: load * 10_000 + 1234.5 });
        telemetry.recordMark({ ...mark('rendered', `r${remote}`, '1.0.0'), startTime: load * 10_000 + 2345 });
        telemetry.recordMark({
          ...mark('failed', `r${remote}`, '1.0.0', 'render'),
          startTime: load * 10_000 + 3000,
        });
      }
    }
    for (let flush = 0; flush < 10; flush += 1) await telemetry.flush();
    // The API's bounds, from the rule module it enforces them with.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(TELEMETRY_BODY_LIMIT_BYTES);
    for (const reports of batches) {
      expect(reports.length).toBeLessThanOrEqual(TELEMETRY_MAX_REPORTS);
      for (const report of reports) {
        expect(report.loadMs.length).toBeLessThanOrEqual(TELEMETRY_MAX_SAMPLES);
        expect(report.failures.render).toBeLessThanOrEqual(TELEMETRY_MAX_SAMPLES);
      }
    }
    expect(sizes.length).toBeGreaterThan(1);
    // Nothing counted was dropped on the way: every remote was sent once, in one batch or another.
    expect(new Set(batches.flat().map((report) => report.remote)).size).toBe(30);
  });

  it('counts a batch refused for rate again later, and drops one refused otherwise', async () => {
    const send = vi
      .fn<(reports: VersionReport[]) => Promise<unknown>>()
      .mockRejectedValueOnce(
        new ApiProblemError({
          type: 'urn:atrium:problem:rate_limited',
          status: 429,
          title: 'Too many requests',
          code: 'rate_limited',
        }),
      )
      .mockRejectedValueOnce(
        new ApiProblemError({
          type: 'urn:atrium:problem:validation_failed',
          status: 400,
          title: 'Bad',
          code: 'validation_failed',
        }),
      )
      .mockResolvedValue(undefined);
    const telemetry = createFieldTelemetry(send);
    telemetry.recordMark(mark('failed', 'profile', '1.2.0', 'download'));
    await telemetry.flush();
    telemetry.recordMark(mark('failed', 'profile', '1.2.0', 'download'));
    await telemetry.flush();
    expect(send.mock.calls[1]![0][0]!.failures.download).toBe(2);
    await telemetry.flush();
    expect(send).toHaveBeenCalledTimes(2);
  });
});
