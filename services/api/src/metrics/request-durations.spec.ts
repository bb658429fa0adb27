import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { FastHistogram } from './request-durations.js';

const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const LABELS = ['method', 'route', 'status'] as const;

/** The same observations through prom-client's Histogram and through FastHistogram, each in its own registry. */
function both() {
  const theirs = new Registry();
  const ours = new Registry();
  const reference = new Histogram({
    name: 'durations',
    help: 'Durations',
    labelNames: LABELS,
    buckets: BOUNDS,
    registers: [theirs],
  });
  const fast = new FastHistogram('durations', 'Durations', LABELS, BOUNDS);
  ours.registerMetric(fast.asRegistered());
  const observe = (values: [string, string, string], value: number) => {
    reference.observe({ method: values[0], route: values[1], status: values[2] }, value);
    fast.observe(fast.seriesOf(...values), value);
  };
  return { theirs, ours, fast, observe };
}

describe('FastHistogram', () => {
  it("scrapes line for line as prom-client's Histogram given the same observations", async () => {
    const { theirs, ours, observe } = both();
    const values = [0, 0.001, 0.005, 0.0050001, 0.02, 0.1, 0.7, 1, 2.5, 4.99, 5, 5.01, 60];
    for (const [index, value] of values.entries()) {
      observe(['GET', '/api/remotes/:name', index % 3 ? '200' : '404'], value);
      observe(['PUT', '/api/me/preferences', '204'], value / 3);
    }
    observe(['GET', 'route "with" a quote\\and\na line', '500'], 0.2);
    const text = await ours.metrics();
    expect(text).toBe(await theirs.metrics());
    expect(text).toContain(
      'durations_bucket{le="+Inf",method="GET",route="/api/remotes/:name",status="200"} 8',
    );
  });

  it('keeps one series per set of label values; a reset empties the scrape, and a held series counts again', async () => {
    const { ours, fast } = both();
    expect(fast.seriesOf('GET', '/a', '200')).toBe(fast.seriesOf('GET', '/a', '200'));
    // Values are compared whole: two values joined differently are two series.
    expect(fast.seriesOf('GET', '/a', '200')).not.toBe(fast.seriesOf('GET', '/a2', '00'));
    expect(() => fast.seriesOf('GET', '/a')).toThrow(/2 label values for 3 labels/);
    const held = fast.seriesOf('GET', '/a', '200');
    fast.observe(held, 0.3);
    ours.resetMetrics();
    expect(await ours.metrics()).not.toContain('route="/a"');
    fast.observe(held, 0.02);
    fast.observe(held, 0.02);
    const text = await ours.metrics();
    expect(text).toContain('durations_count{method="GET",route="/a",status="200"} 2');
    expect(text).toContain('durations_sum{method="GET",route="/a",status="200"} 0.04');
    expect(text).toContain('durations_bucket{le="0.01",method="GET",route="/a",status="200"} 0');
  });
});
