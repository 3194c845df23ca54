/**
 * Inline SVG charts for the HTML report: no script, no external resource, no
 * style attribute (the page's Content-Security-Policy allows none), only SVG
 * presentation attributes. Axes carry round ticks ({@link niceTicks}).
 */
import { html, type SafeHtml } from './safe-html.js';

export interface Series {
  label: string;
  /** A CSS colour, used as a presentation attribute. */
  colour: string;
  points: readonly (readonly [number, number])[];
}

export interface LineChart {
  title: string;
  xLabel: string;
  yLabel: string;
  series: readonly Series[];
  /** Tick labels for x, by value; default: round numbers across the data ({@link niceTicks}; whole ones when every x is whole). */
  xTicks?: readonly (readonly [number, string])[];
  width?: number;
  height?: number;
}

/**
 * The step between about `count` ticks across `span`: 1, 2 or 5 × 10^n, the
 * smallest of them that gives no more than `count` steps, and at least `minimum`
 * (1 for whole numbers such as seconds).
 */
export function niceStep(span: number, count: number, minimum = 0): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].find((m) => m * power >= raw * (1 - 1e-9))! * power;
  return Math.max(step, minimum);
}

/** The multiples of `step` from `min` to `max`, both included when they are multiples; `[min]` when the range is empty. */
export function niceTicks(min: number, max: number, step: number): number[] {
  if (!(max > min) || !(step > 0) || !Number.isFinite(max - min)) return [min];
  const ticks: number[] = [];
  // Each tick from its index (no running sum), rounded to the step's digits, so 0.1 steps give 0.3 and not 0.30000000000000004.
  for (let i = Math.ceil(min / step - 1e-9); i * step <= max + step * 1e-9; i++) ticks.push(Number((i * step).toFixed(decimalsOf(step))));
  return ticks;
}

/** The digits after the point a multiple of `step` needs. */
const decimalsOf = (step: number): number => Math.max(0, -Math.floor(Math.log10(step) + 1e-9));

/** A tick's label: the digits its step needs. */
const label = (value: number, step: number): string => value.toFixed(decimalsOf(step));

/** A line chart with axes, ticks and a legend. Empty series give an empty frame with "no data". */
export function lineChart(chart: LineChart): SafeHtml {
  const width = chart.width ?? 640;
  const height = chart.height ?? 240;
  const pad = { left: 56, right: 16, top: 28, bottom: 40 };
  const points = chart.series.flatMap((s) => s.points);
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const xMin = xs.length ? Math.min(...xs) : 0;
  const xMax = xs.length ? Math.max(...xs) : 1;
  // The y axis starts at 0 and ends at the round tick at or above the highest value.
  const yTop = ys.length ? Math.max(...ys) : 0;
  const yStep = niceStep(yTop > 0 ? yTop : 1, 4);
  const yMax = Math.max(1, Math.ceil(yTop / yStep - 1e-9)) * yStep;
  const px = (x: number) => (pad.left + ((x - xMin) / (xMax - xMin || 1)) * (width - pad.left - pad.right)).toFixed(1);
  const py = (y: number) => (height - pad.bottom - (y / yMax) * (height - pad.top - pad.bottom)).toFixed(1);
  const bottom = height - pad.bottom;
  const middle = (height - pad.bottom + pad.top) / 2;
  const yTicks = niceTicks(0, yMax, yStep);
  const xStep = niceStep(xMax - xMin || 1, 6, xs.every(Number.isInteger) ? 1 : 0);
  const xTicks = chart.xTicks ?? (xs.length ? niceTicks(xMin, xMax, xStep).map((x) => [x, label(x, xStep)] as const) : []);
  const legendX = width - pad.right - 150;
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${chart.title}" class="chart">${[
    html`<title>${chart.title}</title>`,
    html`<text x="${pad.left}" y="16" font-size="13" font-weight="600" fill="currentColor">${chart.title}</text>`,
    html`<line x1="${pad.left}" y1="${bottom}" x2="${width - pad.right}" y2="${bottom}" stroke="currentColor" stroke-opacity="0.45"/>`,
    html`<line x1="${pad.left}" y1="${pad.top}" x2="${pad.left}" y2="${bottom}" stroke="currentColor" stroke-opacity="0.45"/>`,
    yTicks.map((y) => [
      html`<line x1="${pad.left}" y1="${py(y)}" x2="${width - pad.right}" y2="${py(y)}" stroke="currentColor" stroke-opacity="0.15"/>`,
      html`<text x="${pad.left - 6}" y="${(Number(py(y)) + 4).toFixed(1)}" font-size="11" text-anchor="end" fill="currentColor">${label(y, yStep)}</text>`,
    ]),
    xTicks.map(
      ([x, text]) => html`<text x="${px(x)}" y="${bottom + 16}" font-size="11" text-anchor="middle" fill="currentColor">${text}</text>`,
    ),
    html`<text x="${(width + pad.left) / 2}" y="${height - 6}" font-size="11" text-anchor="middle" fill="currentColor">${chart.xLabel}</text>`,
    html`<text x="12" y="${middle}" font-size="11" text-anchor="middle" fill="currentColor" transform="rotate(-90 12 ${middle})">${chart.yLabel}</text>`,
    points.length === 0 &&
      html`<text x="${width / 2}" y="${height / 2}" font-size="12" text-anchor="middle" fill="currentColor">no data</text>`,
    chart.series.map((s, i) => [
      s.points.length > 0 &&
        html`<path d="${s.points.map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${px(x)},${py(y)}`).join(' ')}" fill="none" stroke="${s.colour}" stroke-width="2"/>`,
      // Dots only while they stay apart.
      (s.points.length <= 40 ? s.points : []).map(([x, y]) => html`<circle cx="${px(x)}" cy="${py(y)}" r="2.5" fill="${s.colour}"/>`),
      html`<rect x="${legendX}" y="${pad.top + i * 16 - 9}" width="10" height="10" fill="${s.colour}"/>`,
      html`<text x="${legendX + 14}" y="${pad.top + i * 16}" font-size="11" fill="currentColor">${s.label}</text>`,
    ]),
  ]}</svg>`;
}
