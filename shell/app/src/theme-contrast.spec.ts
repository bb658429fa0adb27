import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The theme's colour pairs that carry text, read from styles.css, must keep WCAG 2.2 AA contrast (4.5:1 for
// text) in both the light and the dark half of each light-dark() pair.
const css = readFileSync(new URL('./styles.css', import.meta.url), 'utf8');

function token(name: string): { light: string; dark: string } {
  const match = new RegExp(
    `--atrium-${name}:\\s*light-dark\\((#[0-9a-f]{6}),\\s*(#[0-9a-f]{6})\\)`,
    'i',
  ).exec(css);
  if (!match) throw new Error(`--atrium-${name} is not a light-dark() pair of #rrggbb colours`);
  return { light: match[1]!, dark: match[2]! };
}

/** WCAG 2.2 relative luminance of a #rrggbb colour. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

function contrast(a: string, b: string): number {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (high! + 0.05) / (low! + 0.05);
}

describe('theme contrast', () => {
  it.each([
    ['danger-text', 'danger'],
    ['accent-text', 'accent'],
    ['text', 'surface'],
    ['text', 'bg'],
    ['muted', 'surface'],
    ['danger', 'surface'],
  ])('--atrium-%s on --atrium-%s reaches 4.5:1 in light and dark', (text, background) => {
    for (const scheme of ['light', 'dark'] as const) {
      expect(contrast(token(text)[scheme], token(background)[scheme])).toBeGreaterThanOrEqual(4.5);
    }
  });

  it.each(['chart-1', 'chart-2', 'chart-3', 'chart-4', 'muted'])(
    '--atrium-%s, a line or an axis of a chart, reaches 3:1 on --atrium-surface in light and dark',
    (line) => {
      for (const scheme of ['light', 'dark'] as const) {
        expect(contrast(token(line)[scheme], token('surface')[scheme])).toBeGreaterThanOrEqual(3);
      }
    },
  );

  it('measures as WCAG does', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });
});
