import { ApiProblemError } from '@atrium/sdk';
import {
  TELEMETRY_BODY_LIMIT_BYTES,
  TELEMETRY_MAX_ATTEMPTS,
  TELEMETRY_MAX_REPORTS,
} from '@atrium/sdk/telemetry-rules';
import { describe, expect, it, vi } from 'vitest';
import { createFieldTelemetry, type VersionReport } from './field-telemetry';
import type { RemoteEvent, RemoteOutcome } from './remote-outcomes';

const outcome = (
  event: RemoteEvent,
  remote: string,
  version: string,
  kind?: string,
  at = 0,
): RemoteOutcome => ({ remote, version, event, kind, at });

/** What the API refuses of a report (its schema's rules, telemetry.schemas.ts), checked on what was sent. */
function withinPageBounds(report: VersionReport): boolean {
  const { download, integrity, timeout, render } = report.failures;
  return (
    report.loadMs.length + download + integrity + timeout <= TELEMETRY_MAX_ATTEMPTS &&
    render <= report.loadMs.length &&
    report.renderMs.length <= report.loadMs.length
  );
}

describe('field telemetry', () => {
  it("turns the slot's outcomes into per-version reports: load and render times, failures by kind, vitals", async () => {
    const sent: VersionReport[][] = [];
    const telemetry = createFieldTelemetry((reports) => {
      sent.push(reports);
      return Promise.resolve();
    });
    telemetry.recordOutcome(outcome('load', 'profile', '1.2.0', undefined, 100));
    telemetry.recordOutcome(outcome('loaded', 'profile', '1.2.0', undefined, 350.4));
    telemetry.recordOutcome(outcome('rendered', 'profile', '1.2.0', undefined, 410));
    telemetry.recordVital({ name: 'LCP', rating: 'good' });
    telemetry.recordVital({ name: 'TTFB', rating: 'poor' });
    telemetry.recordOutcome(outcome('load', 'leave', '2.0.0', undefined, 1000));
    telemetry.recordOutcome(outcome('failed', 'leave', '2.0.0', 'timeout', 11_000));
    telemetry.recordOutcome(outcome('failed', 'leave', '2.0.0', 'refused', 11_500));
    telemetry.recordOutcome(outcome('failed', 'leave', '2.0.0', undefined, 12_000));
    // Refused because the registry pulled the release: nothing the release did, so not a failure of it.
    telemetry.recordOutcome(outcome('failed', 'leave', '2.0.0', 'withdrawn', 12_500));
    telemetry.recordOutcome(outcome('failed', 'profile', '1.2.0', 'render', 13_000));

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
        const at = load * 10_000;
        telemetry.recordOutcome(outcome('load', `r${remote}`, '1.0.0', undefined, at));
        telemetry.recordOutcome(outcome('loaded', `r${remote}`, '1.0.0', undefined, at + 1234.5));
        telemetry.recordOutcome(outcome('rendered', `r${remote}`, '1.0.0', undefined, at + 2345));
        telemetry.recordOutcome(outcome('failed', `r${remote}`, '1.0.0', 'render', at + 3000));
      }
    }
    for (let flush = 0; flush < 10; flush += 1) await telemetry.flush();
    // The API's bounds, from the rule module it enforces them with.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(TELEMETRY_BODY_LIMIT_BYTES);
    for (const reports of batches) {
      expect(reports.length).toBeLessThanOrEqual(TELEMETRY_MAX_REPORTS);
      expect(new Set(reports.map((report) => `${report.remote}@${report.version}`)).size).toBe(
        reports.length,
      );
      for (const report of reports) expect(withinPageBounds(report)).toBe(true);
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
    telemetry.recordOutcome(outcome('failed', 'profile', '1.2.0', 'download'));
    await telemetry.flush();
    telemetry.recordOutcome(outcome('failed', 'profile', '1.2.0', 'download'));
    // The refused report goes again first, alone for its version; the newer one waits for the next batch.
    await telemetry.flush();
    expect(send.mock.calls[1]![0]).toEqual([
      expect.objectContaining({ failures: expect.objectContaining({ download: 1 }) as unknown }),
    ]);
    await telemetry.flush();
    expect(send).toHaveBeenCalledTimes(3);
    expect(send.mock.calls[2]![0][0]!.failures.download).toBe(1);
    await telemetry.flush();
    expect(send).toHaveBeenCalledTimes(3);
  });

  it('keeps each report to what one page can produce, however often a remote is retried or crashes', async () => {
    const sent: VersionReport[][] = [];
    const telemetry = createFieldTelemetry((reports) => {
      sent.push(reports);
      return Promise.resolve();
    });
    // A person pressing Retry on a failing remote many times within a minute.
    for (let retry = 0; retry < 50; retry += 1) {
      telemetry.recordOutcome(outcome('load', 'leave', '2.0.0', undefined, retry * 100));
      telemetry.recordOutcome(outcome('failed', 'leave', '2.0.0', 'download', retry * 100 + 50));
    }
    // A remote that loads, renders, and then crashes on every interaction.
    telemetry.recordOutcome(outcome('load', 'profile', '1.2.0', undefined, 0));
    telemetry.recordOutcome(outcome('loaded', 'profile', '1.2.0', undefined, 200));
    telemetry.recordOutcome(outcome('rendered', 'profile', '1.2.0', undefined, 250));
    for (let crash = 0; crash < 5; crash += 1) {
      telemetry.recordOutcome(outcome('failed', 'profile', '1.2.0', 'render', 300 + crash));
    }
    // A release without a Feature: loaded, then failed to render.
    telemetry.recordOutcome(outcome('load', 'wonky', '3.0.0', undefined, 0));
    telemetry.recordOutcome(outcome('failed', 'wonky', '3.0.0', 'invalid', 120));
    await telemetry.flush();
    const [reports] = sent;
    for (const report of reports!) expect(withinPageBounds(report)).toBe(true);
    expect(reports!.find((report) => report.remote === 'leave')?.failures.download).toBe(
      TELEMETRY_MAX_ATTEMPTS,
    );
    // Each crash after the first counts its load again: 5 loads, 5 failures to render, never more failures.
    expect(reports!.find((report) => report.remote === 'profile')).toMatchObject({
      loadMs: [200, 200, 200, 200, 200],
      renderMs: [50],
      failures: { render: 5 },
    });
    expect(reports!.find((report) => report.remote === 'wonky')).toMatchObject({
      loadMs: [120],
      failures: { download: 0, render: 1 },
    });

    // A crash after its load was sent: the load is counted again with it.
    telemetry.recordOutcome(outcome('failed', 'profile', '1.2.0', 'render', 10_000));
    await telemetry.flush();
    expect(sent[1]).toEqual([
      expect.objectContaining({ loadMs: [200], failures: expect.objectContaining({ render: 1 }) as unknown }),
    ]);
  });
});
