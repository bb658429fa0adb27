// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';
import {
  CHART_THEME,
  lineChartOptions,
  resolveChartColours,
  SERIES_DASHES,
  subscribeToTheme,
  themeKey,
  type ChartColours,
} from './chart-theme';

const colours: ChartColours = {
  text: 'rgb(1, 1, 1)',
  grid: 'rgb(2, 2, 2)',
  series: ['rgb(10, 0, 0)', 'rgb(0, 10, 0)'],
};

const spec = {
  width: 320,
  height: 200,
  yLabel: 'Failure rate (%)',
  yRange: [0, 100] as const,
  xLabel: 'Minute',
  lines: ['1.0.0', '1.1.0', '1.2.0'],
  formatX: (seconds: number) => `at ${seconds}`,
  colours,
};

afterEach(() => {
  document.documentElement.removeAttribute('data-theme');
  document.body.replaceChildren();
});

describe('lineChartOptions', () => {
  it("draws each line in the theme's colours, told apart by its dash pattern as well", () => {
    const [x, ...lines] = lineChartOptions(spec).series;
    expect(x).toEqual({ label: 'Minute' });
    expect(lines.map((line) => line.label)).toEqual(['1.0.0', '1.1.0', '1.2.0']);
    // Colours cycle when there are more lines than colours; the patterns differ from line to line.
    expect(lines.map((line) => line.stroke)).toEqual(['rgb(10, 0, 0)', 'rgb(0, 10, 0)', 'rgb(10, 0, 0)']);
    expect(lines.map((line) => line.dash)).toEqual([undefined, [8, 4], [2, 3]]);
    expect(new Set(lines.map((line) => JSON.stringify(line.dash))).size).toBe(3);
    // Points are filled with the line's colour, never a light fill that vanishes on the light surface.
    expect(lines.map((line) => line.points)).toEqual(
      lines.map((line) => ({ stroke: line.stroke, fill: line.stroke })),
    );
    expect(SERIES_DASHES.length).toBeGreaterThanOrEqual(CHART_THEME.series.length);
  });

  it('gives both axes the theme text and grid colours, the y axis its name, and the x axis the given times', () => {
    const [x, y] = lineChartOptions(spec).axes!;
    for (const axis of [x!, y!]) {
      expect(axis.stroke).toBe('rgb(1, 1, 1)');
      expect(axis.grid).toEqual({ stroke: 'rgb(2, 2, 2)', width: 1 });
      expect(axis.ticks).toEqual({ stroke: 'rgb(2, 2, 2)', width: 1 });
    }
    expect(y!.label).toBe('Failure rate (%)');
    const values = x!.values as (plot: unknown, splits: number[]) => string[];
    expect(values(undefined, [60, 120])).toEqual(['at 60', 'at 120']);
  });

  it('keeps the legend under the plot without values that follow the pointer, at the given size and range', () => {
    const options = lineChartOptions(spec);
    expect(options.legend).toEqual({ show: true, live: false });
    expect(options).toMatchObject({ width: 320, height: 200, scales: { y: { range: [0, 100] } } });
  });
});

describe('resolveChartColours', () => {
  it('asks the document for each theme colour inside the chart, and leaves nothing behind', () => {
    const chart = document.createElement('div');
    document.body.append(chart);
    const resolved = resolveChartColours(chart);
    expect(resolved.series).toHaveLength(CHART_THEME.series.length);
    expect(typeof resolved.text).toBe('string');
    expect(typeof resolved.grid).toBe('string');
    expect(chart.childElementCount).toBe(0);
  });
});

describe('theme changes', () => {
  it("tells the chart when the person's theme changes, until unsubscribed", async () => {
    const before = themeKey();
    let calls = 0;
    const unsubscribe = subscribeToTheme(() => (calls += 1));
    document.documentElement.setAttribute('data-theme', 'dark');
    await Promise.resolve();
    expect(calls).toBe(1);
    expect(themeKey()).not.toBe(before);
    expect(themeKey()).toMatch(/^dark\//);
    unsubscribe();
    document.documentElement.setAttribute('data-theme', 'light');
    await Promise.resolve();
    expect(calls).toBe(1);
  });
});
