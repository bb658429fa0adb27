import { THEME_ATTRIBUTE } from '@atrium/sdk';
import type uPlot from 'uplot';

/** The colours a chart draws with, as the canvas needs them: resolved in the person's theme (`rgb(…)`). */
export interface ChartColours {
  /** Axis labels and tick values. */
  readonly text: string;
  /** Grid lines and ticks. */
  readonly grid: string;
  /** One per line, in order (the lines after the last take them again). */
  readonly series: readonly string[];
}

/**
 * The theme's colours a chart draws with: the shell's tokens (styles.css), each a light-dark() pair, so the lines
 * and axes read on the light and on the dark surface.
 */
export const CHART_THEME = {
  text: 'var(--atrium-muted, #57606a)',
  grid: 'var(--atrium-border, #d0d7de)',
  series: [
    'var(--atrium-chart-1, #0b5fff)',
    'var(--atrium-chart-2, #b35c00)',
    'var(--atrium-chart-3, #8250df)',
    'var(--atrium-chart-4, #1a7f37)',
  ],
} as const;

/**
 * Dash patterns, one per line in order: a line is told from the others by its pattern as well as its colour
 * (for people who do not tell the colours apart, and in print).
 */
export const SERIES_DASHES: readonly (readonly number[] | undefined)[] = [
  undefined,
  [8, 4],
  [2, 3],
  [10, 3, 2, 3],
];

/**
 * {@link CHART_THEME}'s colours as the document resolves them inside `element`, in the theme the page shows now: a
 * canvas cannot read CSS variables or light-dark().
 */
export function resolveChartColours(element: HTMLElement): ChartColours {
  const probe = element.ownerDocument.createElement('span');
  probe.hidden = true;
  element.append(probe);
  const resolve = (value: string) => {
    probe.style.color = value;
    return getComputedStyle(probe).color;
  };
  try {
    return {
      text: resolve(CHART_THEME.text),
      grid: resolve(CHART_THEME.grid),
      series: CHART_THEME.series.map(resolve),
    };
  } finally {
    probe.remove();
  }
}

/** What {@link lineChartOptions} draws. */
export interface LineChartSpec {
  readonly width: number;
  readonly height: number;
  /** The y axis' name, with its unit. */
  readonly yLabel: string;
  /** The y axis' range. */
  readonly yRange: readonly [number, number];
  /** The x values' name (the legend does not show it: the axis says it). */
  readonly xLabel: string;
  /** One name per line, in the legend. */
  readonly lines: readonly string[];
  /** An x value (Unix seconds) as the axis shows it. */
  readonly formatX: (seconds: number) => string;
  readonly colours: ChartColours;
}

/**
 * uPlot's options for a line chart over time in the person's theme: lines of the theme's colours, each with its
 * own dash pattern, readable axes and grid, the legend under the plot (never over the axes) and no legend value
 * that follows the pointer (the table under the chart has the numbers).
 */
export function lineChartOptions(spec: LineChartSpec): uPlot.Options {
  const { colours } = spec;
  const axis = {
    stroke: colours.text,
    grid: { stroke: colours.grid, width: 1 },
    ticks: { stroke: colours.grid, width: 1 },
  };
  return {
    width: spec.width,
    height: spec.height,
    legend: { show: true, live: false },
    scales: { y: { range: [spec.yRange[0], spec.yRange[1]] } },
    axes: [
      { ...axis, values: (_plot, splits) => splits.map((split) => spec.formatX(split)) },
      { ...axis, label: spec.yLabel },
    ],
    series: [
      { label: spec.xLabel },
      ...spec.lines.map((label, index) => {
        const stroke = colours.series[index % colours.series.length]!;
        const dash = SERIES_DASHES[index % SERIES_DASHES.length];
        return {
          label,
          stroke,
          width: 2,
          spanGaps: true,
          points: { stroke, fill: stroke },
          ...(dash === undefined ? {} : { dash: [...dash] }),
        };
      }),
    ],
  };
}

/**
 * Calls `onChange` whenever the page's theme may have changed: the person picked another (the sdk's theme
 * attribute on <html>) or the system's light or dark changed. Returns the unsubscribe.
 */
export function subscribeToTheme(onChange: () => void): () => void {
  const root = document.documentElement;
  const observer = new MutationObserver(onChange);
  observer.observe(root, { attributes: true, attributeFilter: [THEME_ATTRIBUTE] });
  const media = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : undefined;
  media?.addEventListener('change', onChange);
  return () => {
    observer.disconnect();
    media?.removeEventListener('change', onChange);
  };
}

/** The theme the page shows, as a key that changes when it does (see {@link subscribeToTheme}). */
export function themeKey(): string {
  const dark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  return `${document.documentElement.getAttribute(THEME_ATTRIBUTE) ?? 'system'}/${dark ? 'dark' : 'light'}`;
}
