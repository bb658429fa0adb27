import { useApi, type RemoteHealthDocument } from '@atrium/sdk';
import { useEffect, useRef, useState } from 'react';
import { describeApiError } from '@atrium/sdk/ui';

/** The window the console shows: the last three hours, per minute. */
const WINDOW_MINUTES = 180;

type HealthState =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly document: RemoteHealthDocument }
  | { readonly status: 'failed'; readonly message: string };

const rate = (failures: number, attempts: number) => (attempts ? failures / attempts : 0);
const percent = (value: number) => `${(value * 100).toFixed(1)} %`;

/**
 * A remote's field health: per version, loads and failures in the window (a table, readable without the
 * chart) and the failure rate per minute as a uPlot chart. uPlot is a chunk of this remote fetched only when
 * a chart is drawn: nothing of it is in the shell or the admin console's first load.
 */
export function HealthChart({ remote, refresh }: { readonly remote: string; readonly refresh: number }) {
  const api = useApi();
  const [state, setState] = useState<HealthState>({ status: 'loading' });
  const [chartProblem, setChartProblem] = useState<string | null>(null);
  const chart = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const controller = new AbortController();
    api
      .get<RemoteHealthDocument>(
        `/api/admin/remotes/${encodeURIComponent(remote)}/health?minutes=${WINDOW_MINUTES}`,
        { signal: controller.signal },
      )
      .then(
        (document) => setState({ status: 'ready', document }),
        (error: unknown) => {
          if (!controller.signal.aborted) {
            setState({
              status: 'failed',
              message: describeApiError(error, 'Field health could not be loaded'),
            });
          }
        },
      );
    return () => controller.abort();
  }, [api, remote, refresh]);

  const document = state.status === 'ready' ? state.document : null;
  useEffect(() => {
    const target = chart.current;
    if (!document || !target || document.versions.length === 0) return;
    let plot: { destroy(): void } | undefined;
    let current = true;
    // uPlot draws on a 2D canvas; without one (a locked-down or text browser) the table says it all.
    if (!globalThis.document.createElement('canvas').getContext('2d')) {
      setChartProblem('This browser cannot draw the chart; the table has the same numbers.');
      return;
    }
    import('uplot').then(
      ({ default: UPlot }) => {
        if (!current) return;
        const minutes = [...new Set(document.versions.flatMap((v) => v.points.map((p) => p.minute)))].sort();
        const xs = minutes.map((minute) => Date.parse(minute) / 1000);
        const series = document.versions.map(({ points }) => {
          const byMinute = new Map(points.map((point) => [point.minute, point]));
          return minutes.map((minute) => {
            const point = byMinute.get(minute);
            return point ? rate(point.failures, point.attempts) * 100 : null;
          });
        });
        try {
          plot = new UPlot(
            {
              width: Math.max(320, target.clientWidth || 640),
              height: 200,
              scales: { y: { range: [0, 100] } },
              axes: [{}, { label: 'failures %' }],
              series: [{}, ...document.versions.map(({ version }) => ({ label: version, spanGaps: true }))],
            },
            [xs, ...series],
            target,
          );
        } catch (error) {
          setChartProblem(`The chart could not be drawn (${String(error)}); the table has the same numbers.`);
        }
      },
      () => current && setChartProblem('The chart could not be loaded; the table has the same numbers.'),
    );
    return () => {
      current = false;
      plot?.destroy();
    };
  }, [document]);

  if (state.status === 'loading') return <p className="atrium-admin__muted">Loading field health…</p>;
  if (state.status === 'failed') {
    return (
      <p role="alert" className="atrium-admin__error">
        {state.message}
      </p>
    );
  }
  if (state.document.versions.length === 0) {
    return <p className="atrium-admin__muted">No field reports in the last {WINDOW_MINUTES / 60} hours.</p>;
  }
  return (
    <div className="atrium-admin__health">
      <table className="atrium-admin__table" data-testid={`health-${remote}`}>
        <caption>Field health, last {WINDOW_MINUTES / 60} hours</caption>
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
          {state.document.versions.map(({ version, points }) => {
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
      </table>
      <div ref={chart} aria-hidden="true" className="atrium-admin__chart" />
      {chartProblem && <p className="atrium-admin__muted">{chartProblem}</p>}
    </div>
  );
}
