/**
 * Inline SVG charts for the HTML report: no script, no external resource, no
 * style attribute (the page's Content-Security-Policy allows none), only SVG
 * presentation attributes. Text is escaped by the caller's `escape`.
 */

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
  /** Tick labels for x, by value; default: numbers. */
  xTicks?: readonly (readonly [number, string])[];
  width?: number;
  height?: number;
}

const fmt = (n: number): string => (Number.isInteger(n) ? n.toString() : n >= 100 ? Math.round(n).toString() : n >= 10 ? n.toFixed(1) : n >= 1 ? n.toFixed(2) : n.toFixed(3));

/** A line chart with axes, ticks and a legend. Empty series give an empty frame with "no data". */
export function lineChart(chart: LineChart, escape: (s: string) => string): string {
  const width = chart.width ?? 640;
  const height = chart.height ?? 240;
  const pad = { left: 56, right: 16, top: 28, bottom: 40 };
  const points = chart.series.flatMap((s) => s.points);
  const xs = points.map(([x]) => x);
  const ys = points.map(([, y]) => y);
  const xMin = xs.length ? Math.min(...xs) : 0;
  const xMax = xs.length ? Math.max(...xs) : 1;
  const yMax = ys.length ? Math.max(...ys) * 1.1 || 1 : 1;
  const px = (x: number) => pad.left + ((x - xMin) / (xMax - xMin || 1)) * (width - pad.left - pad.right);
  const py = (y: number) => height - pad.bottom - (y / yMax) * (height - pad.top - pad.bottom);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escape(chart.title)}" class="chart">`,
    `<title>${escape(chart.title)}</title>`,
    `<text x="${pad.left}" y="16" font-size="13" font-weight="600" fill="currentColor">${escape(chart.title)}</text>`,
    `<line x1="${pad.left}" y1="${height - pad.bottom}" x2="${width - pad.right}" y2="${height - pad.bottom}" stroke="#9aa4b2"/>`,
    `<line x1="${pad.left}" y1="${pad.top}" x2="${pad.left}" y2="${height - pad.bottom}" stroke="#9aa4b2"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const y = (yMax / 4) * i;
    parts.push(`<line x1="${pad.left}" y1="${py(y).toFixed(1)}" x2="${width - pad.right}" y2="${py(y).toFixed(1)}" stroke="#e3e8ef"/>`);
    parts.push(`<text x="${pad.left - 6}" y="${(py(y) + 4).toFixed(1)}" font-size="11" text-anchor="end" fill="currentColor">${escape(fmt(y))}</text>`);
  }
  const ticks = chart.xTicks ?? (xs.length ? [...new Set([xMin, Math.round((xMin + xMax) / 2), xMax])].map((x) => [x, fmt(x)] as const) : []);
  for (const [x, label] of ticks) parts.push(`<text x="${px(x).toFixed(1)}" y="${height - pad.bottom + 16}" font-size="11" text-anchor="middle" fill="currentColor">${escape(label)}</text>`);
  parts.push(`<text x="${(width + pad.left) / 2}" y="${height - 6}" font-size="11" text-anchor="middle" fill="currentColor">${escape(chart.xLabel)}</text>`);
  parts.push(`<text x="12" y="${(height - pad.bottom + pad.top) / 2}" font-size="11" text-anchor="middle" fill="currentColor" transform="rotate(-90 12 ${(height - pad.bottom + pad.top) / 2})">${escape(chart.yLabel)}</text>`);
  if (points.length === 0) parts.push(`<text x="${width / 2}" y="${height / 2}" font-size="12" text-anchor="middle" fill="currentColor">no data</text>`);
  chart.series.forEach((s, i) => {
    if (s.points.length > 0) {
      const d = s.points.map(([x, y], j) => `${j === 0 ? 'M' : 'L'}${px(x).toFixed(1)},${py(y).toFixed(1)}`).join(' ');
      parts.push(`<path d="${d}" fill="none" stroke="${s.colour}" stroke-width="2"/>`);
      for (const [x, y] of s.points.length <= 40 ? s.points : []) parts.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="2.5" fill="${s.colour}"/>`);
    }
    const lx = width - pad.right - 150;
    parts.push(`<rect x="${lx}" y="${pad.top + i * 16 - 9}" width="10" height="10" fill="${s.colour}"/>`);
    parts.push(`<text x="${lx + 14}" y="${pad.top + i * 16}" font-size="11" fill="currentColor">${escape(s.label)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('');
}
