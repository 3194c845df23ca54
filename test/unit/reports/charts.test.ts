/** Round ticks for the report's charts (reports/charts.ts): steps of 1, 2 or 5 × 10^n. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lineChart, niceStep, niceTicks } from '../../../reports/charts.js';

describe('round ticks', () => {
  it('picks a step of 1, 2 or 5 × 10^n giving at most the ticks asked for', () => {
    expect(niceStep(12_119, 4)).toBe(5000);
    expect(niceStep(8.46, 4)).toBe(5);
    expect(niceStep(10, 5)).toBe(2);
    expect(niceStep(1, 4)).toBe(0.5);
    expect(niceStep(0.3, 4)).toBe(0.1);
    expect(niceStep(100, 10)).toBe(10);
    // Whole numbers (seconds) never get a step below 1.
    expect(niceStep(2, 6, 1)).toBe(1);
  });

  it('lists the multiples of the step within the range, without floating-point dust', () => {
    expect(niceTicks(0, 15_000, 5000)).toEqual([0, 5000, 10_000, 15_000]);
    expect(niceTicks(0, 0.3, 0.1)).toEqual([0, 0.1, 0.2, 0.3]);
    expect(niceTicks(3, 17, 5)).toEqual([5, 10, 15]);
    expect(niceTicks(-1, 1, 0.5)).toEqual([-1, -0.5, 0, 0.5, 1]);
    expect(niceTicks(4, 4, 1)).toEqual([4]);
  });
});

describe('lineChart', () => {
  const labels = (svg: string, anchor: string) =>
    [...svg.matchAll(new RegExp(`text-anchor="${anchor}" fill="currentColor">([^<]*)<`, 'g'))].map((m) => m[1]);

  it('labels the y axis from 0 to the round tick above the data, and whole seconds on x', () => {
    const svg = lineChart({
      title: 'T',
      xLabel: 'second',
      yLabel: 'req/s',
      series: [
        {
          label: 's',
          colour: '#000',
          points: [
            [0, 120],
            [1, 730],
            [2, 1210],
          ],
        },
      ],
    }).toString();
    expect(labels(svg, 'end')).toEqual(['0', '500', '1000', '1500']);
    expect(labels(svg, 'middle').slice(0, 3)).toEqual(['0', '1', '2']);
  });

  it('draws an empty frame that says "no data"', () => {
    const svg = lineChart({ title: 'T', xLabel: 'x', yLabel: 'y', series: [] }).toString();
    expect(svg).toContain('>no data</text>');
    expect(svg).not.toContain('<path');
  });
});

describe('charts in dark mode', () => {
  it("draw on the page's card in its palette, axes and grid in currentColor: no light colour of their own", () => {
    const sheet = (name: string) => readFileSync(new URL(`../../../reports/assets/${name}`, import.meta.url), 'utf8');
    const [reportCss, sharedCss] = [sheet('report.css'), sheet('shared.css')];
    const rule = /\.chart\{([^}]*)\}/.exec(reportCss)?.[1];
    expect(rule).toBeDefined();
    expect(rule).toContain('background:var(--card)');
    expect(rule).toContain('color:var(--fg)');
    expect(rule).not.toMatch(/#[0-9a-f]{3,6}/i);
    // The palette the chart takes has a dark card.
    expect(sharedCss).toMatch(/@media \(prefers-color-scheme:dark\)\{:root\{[^}]*--card:#1b2029/);
    const svg = lineChart({
      title: 'T',
      xLabel: 'x',
      yLabel: 'y',
      series: [
        {
          label: 's',
          colour: '#2563eb',
          points: [
            [0, 1],
            [1, 2],
          ],
        },
      ],
    }).toString();
    const strokes = [...svg.matchAll(/<line [^>]*stroke="([^"]*)"/g)].map((m) => m[1]);
    expect(strokes.length).toBeGreaterThan(2);
    expect(new Set(strokes)).toEqual(new Set(['currentColor']));
  });
});
