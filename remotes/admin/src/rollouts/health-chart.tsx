import type { RemoteHealthDocument } from '@atrium/sdk';
import { ResourceView, Table, useApiResource } from '@atrium/sdk/ui';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import { lineChartOptions, resolveChartColours, subscribeToTheme, themeKey } from './chart-theme';

/** The window the console shows: the last three hours, per minute. */
const WINDOW_MINUTES = 180;

const rate = (failures: number, attempts: number) => (attempts ? failures / attempts : 0);
const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/**
 * A remote's field health: per version, loads and failures in the window (a table, readable without the
 * chart) and the failure rate per minute as a uPlot chart. uPlot is a chunk of this remote fetched only when
 * a chart is drawn: nothing of it is in the shell or the admin console's first load.
 */
export function HealthChart({ remote }: { readonly remote: string }) {
  const health = useApiResource<RemoteHealthDocument>(
    `/api/admin/remotes/${encodeURIComponent(remote)}/health?minutes=${WINDOW_MINUTES}`,
  );
  return (
    <ResourceView resource={health} loading="Loading field health…" failed="Field health could not be loaded">
      {(document) => <HealthOfVersions remote={remote} document={document} />}
    </ResourceView>
  );
}

/** The table and, where the browser can draw it, the chart. */
function HealthOfVersions({
  remote,
  document,
}: {
  readonly remote: string;
  readonly document: RemoteHealthDocument;
}) {
  const [chartProblem, setChartProblem] = useState<string | null>(null);
  const chart = useRef<HTMLDivElement>(null);
  // uPlot draws on a 2D canvas; without one (a locked-down or text browser) the table says it all.
  const [canDraw] = useState(() => globalThis.document.createElement('canvas').getContext('2d') !== null);
  const theme = useSyncExternalStore(subscribeToTheme, themeKey);

  useEffect(() => {
    const target = chart.current;
    if (!target || document.versions.length === 0) return;
    let plot: { destroy(): void } | undefined;
    let current = true;
    if (!canDraw) return;
    let resize: ResizeObserver | undefined;
    import('./uplot').then(
      ({ UPlot }) => {
        if (!current) return;
        const { xs, series } = perMinute(document);
        // The chart takes its card's width, and follows it when the window changes size.
        const size = () => ({ width: Math.max(target.clientWidth, 200), height: 200 });
        try {
          const drawn = new UPlot(
            lineChartOptions({
              ...size(),
              yLabel: 'Failure rate (%)',
              yRange: [0, 100],
              xLabel: 'Minute',
              lines: document.versions.map(({ version }) => version),
              formatX: (seconds) => timeOfDay.format(new Date(seconds * 1000)),
              // Drawn again when the theme changes (the effect depends on it): a canvas keeps its colours.
              colours: resolveChartColours(target),
            }),
            [xs, ...series.map((rates) => rates.map((value) => (value === null ? null : value * 100)))],
            target,
          );
          plot = drawn;
          if (typeof ResizeObserver === 'function') {
            resize = new ResizeObserver(() => drawn.setSize(size()));
            resize.observe(target);
          }
        } catch (error) {
          setChartProblem(`The chart could not be drawn (${String(error)}); the table has the same numbers.`);
        }
      },
      () => current && setChartProblem('The chart could not be loaded; the table has the same numbers.'),
    );
    return () => {
      current = false;
      resize?.disconnect();
      plot?.destroy();
    };
  }, [document, canDraw, theme]);

  if (document.versions.length === 0) {
    return (
      <>
        <p className="atrium-admin__muted">No field reports in the last {WINDOW_MINUTES / 60} hours.</p>
        {document.canary && <CanaryEvidence remote={remote} canary={document.canary} />}
      </>
    );
  }
  return (
    <div className="atrium-admin__health">
      {document.canary && <CanaryEvidence remote={remote} canary={document.canary} />}
      <Table caption={`Field health, last ${WINDOW_MINUTES / 60} hours`} data-testid={`health-${remote}`}>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Loads</th>
            <th scope="col">Failures</th>
            <th scope="col">Failure rate</th>
            <th scope="col">Poor web vitals</th>
          </tr>
        </thead>
        <tbody>
          {document.versions.map(({ version, points }) => {
            const sum = (pick: (point: (typeof points)[number]) => number) =>
              points.reduce((total, point) => total + pick(point), 0);
            const attempts = sum((point) => point.attempts);
            const failures = sum((point) => point.failures);
            const vitals = sum((point) => point.vitals);
            return (
              <tr key={version}>
                <th scope="row">{version}</th>
                <td>{attempts}</td>
                <td>{failures}</td>
                <td>{percent(rate(failures, attempts))}</td>
                <td>{vitals ? percent(sum((point) => point.poorVitals) / vitals) : '–'}</td>
              </tr>
            );
          })}
        </tbody>
      </Table>
      <div ref={chart} aria-hidden="true" className="atrium-admin__chart" />
      <ChartNumbers remote={remote} document={document} />
      {!canDraw && (
        <p className="atrium-admin__muted">
          This browser cannot draw the chart; the table has the same numbers.
        </p>
      )}
      {chartProblem && <p className="atrium-admin__muted">{chartProblem}</p>}
    </div>
  );
}

/** The chart's numbers: the minutes any version reported in, and each version's failure rate per minute. */
function perMinute(document: RemoteHealthDocument) {
  const minutes = [...new Set(document.versions.flatMap((v) => v.points.map((p) => p.minute)))].sort();
  const series = document.versions.map(({ points }) => {
    const byMinute = new Map(points.map((point) => [point.minute, point]));
    return minutes.map((minute) => {
      const point = byMinute.get(minute);
      return point ? rate(point.failures, point.attempts) : null;
    });
  });
  return { minutes, xs: minutes.map((minute) => Date.parse(minute) / 1000), series };
}

const timeOfDay = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** What the chart draws, as a table: for people who do not read charts, and for screen readers. */
function ChartNumbers({
  remote,
  document,
}: {
  readonly remote: string;
  readonly document: RemoteHealthDocument;
}) {
  const { minutes, series } = perMinute(document);
  return (
    <details className="atrium-admin__chart-numbers">
      <summary>The chart's numbers, minute by minute</summary>
      <Table caption="Failure rate per minute, by version" data-testid={`health-minutes-${remote}`}>
        <thead>
          <tr>
            <th scope="col">Minute</th>
            {document.versions.map(({ version }) => (
              <th scope="col" key={version}>
                {version}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {minutes.map((minute, row) => (
            <tr key={minute}>
              <th scope="row">
                <time dateTime={minute}>{timeOfDay.format(new Date(minute))}</time>
              </th>
              {series.map((rates, column) => {
                const value = rates[row];
                return (
                  <td key={document.versions[column]!.version}>{value == null ? '–' : percent(value)}</td>
                );
              })}
            </tr>
          ))}
        </tbody>
      </Table>
    </details>
  );
}

/** A count as the rollback sees it: whole, or one decimal for a person's capped share. */
const amount = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));

/**
 * What the automatic rollback judges the running canary on: per side, the loads counted (each person's share
 * capped), how many failed and how many distinct people reported them, against what a rollback needs.
 */
function CanaryEvidence({
  remote,
  canary,
}: {
  readonly remote: string;
  readonly canary: NonNullable<RemoteHealthDocument['canary']>;
}) {
  const sides = [
    { label: `Canary ${canary.version}`, tally: canary.canary },
    { label: `Stable ${canary.stableVersion}`, tally: canary.stable },
  ];
  return (
    <Table
      caption={`What the automatic rollback sees: each side needs ${canary.needs.loads} loads from ${canary.needs.people} people`}
      data-testid={`canary-evidence-${remote}`}
    >
      <thead>
        <tr>
          <th scope="col">Side</th>
          <th scope="col">Loads counted</th>
          <th scope="col">Failed</th>
          <th scope="col">People reporting</th>
        </tr>
      </thead>
      <tbody>
        {sides.map(({ label, tally }) => (
          <tr key={label}>
            <th scope="row">{label}</th>
            <td>{amount(tally.attempts)}</td>
            <td>{amount(tally.failures)}</td>
            <td>{tally.reporters}</td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
