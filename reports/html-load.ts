/**
 * report.html's load section: per profile, its figures per operation, its
 * thresholds, conformance under load, and charts over time.
 */
import type { ConformanceResult, LoadFigures, LoadResult, ThresholdResult } from '../result/model.js';
import { boundWords } from '../result/generator.js';
import { NOT_MEASURED, thresholdMeasured } from '../result/policy.js';
import { ruleAnchor as anchor } from '../spec/anchor.js';
import { lineChart } from './charts.js';
import { count, markedText as text, plural } from './components.js';
import { badge, millis, seconds, type Shown } from './html-parts.js';
import { html, join, type SafeHtml } from './safe-html.js';

/** The load profiles that ran: figures per operation, thresholds, conformance under load, and charts. */
export function renderLoad(result: ConformanceResult): SafeHtml | undefined {
  if (result.load.length === 0) return undefined;
  return html`<section id="load">
<h2>Load</h2>
${join(result.load.map(renderProfile), '\n')}
</section>`;
}

const OUTCOME_OF_THRESHOLD: Record<ThresholdResult['outcome'], Shown> = { pass: 'pass', fail: 'fail', inconclusive: 'inconclusive' };

function renderProfile(load: LoadResult): SafeHtml {
  const row = (label: string, f: LoadFigures) =>
    html`<tr><th scope="row">${text(label)}</th><td>${count(f.requests)}</td><td>${text(f.throughput)}</td><td>${millis(f.latencyMs.p50)}</td><td>${millis(f.latencyMs.p95)}</td><td>${millis(f.latencyMs.p99)}</td><td>${millis(f.latencyMs.max)}</td><td>${(f.errorRate * 100).toFixed(2)}%</td><td>${count(f.errors.non2xx)} / ${count(f.errors.timeouts)} / ${count(f.errors.socketErrors)}</td></tr>`;
  const thresholds = load.thresholds.map(
    (t) =>
      html`<tr id="${anchor(t.id)}"><td>${badge(OUTCOME_OF_THRESHOLD[t.outcome])}</td><td><code>${text(t.id)}</code></td><td><code>${text(t.expression)}</code></td><td>${thresholdMeasured(t) ? html`${text(t.measured)} ${text(t.unit)}` : NOT_MEASURED}</td><td>${text(t.reason ?? '')}</td></tr>`,
  );
  const g = load.generatorLoad;
  const facts: SafeHtml[] = [
    html`${text(load.kind)} loop, ${text(load.generator)}, ${seconds(load.durationMs)}, up to ${count(load.settings.connections)} connections${load.settings.rate ? html`, ${text(load.settings.rate)} req/s due` : ''}`,
    html`generator: ${Math.round(g.cpuShare * 100)}% of a core, event-loop delay p99 ${millis(g.eventLoopDelayP99Ms)}${g.bound && html` — <strong>${text(boundWords(load))}</strong>`}`,
    html`conformance under load: ${plural(load.conformance.sampled, 'response')} judged${load.conformance.failedRules.length ? html`; <strong>failing under load: ${text(load.conformance.failedRules.join(', '))}</strong>` : ', every rule held'}`,
    ...(load.answered ? [html`answered: ${count(load.answered.answered)} of ${count(load.answered.due)} requests due`] : []),
    ...(load.schedule
      ? [
          html`schedule: ${count(load.schedule.sent)} of ${count(load.schedule.due)} due requests sent, ${count(load.schedule.dropped)} dropped (all connections busy), ${count(load.schedule.late)} late`,
        ]
      : []),
    ...(load.brokeAt
      ? [
          html`broke at stage ${text(load.brokeAt.stage)} (${text(load.brokeAt.connections)} connections): ${text(load.brokeAt.thresholds.join('; '))}`,
        ]
      : []),
    ...(load.drift
      ? [
          html`drift: p99 ×${text(load.drift.p99Ratio)} from the first tenth to the last; error rate ${(load.drift.errorRateDelta * 100).toFixed(2)} points`,
        ]
      : []),
    ...(load.stoppedEarly ? [html`stopped early: ${text(load.stoppedEarly)}`] : []),
  ];
  const overTime = (title: string, yLabel: string, lines: [string, string, (t: LoadResult['timeline'][number]) => number][]) =>
    lineChart({
      title,
      xLabel: 'second of the profile',
      yLabel,
      series: lines.map(([label, colour, pick]) => ({ label, colour, points: load.timeline.map((t) => [t.second, pick(t)] as const) })),
    });
  const throughput = overTime('Throughput over time', 'responses per second', [
    ['responses/s', '#2563eb', (t) => t.requests],
    ['errors/s', '#dc2626', (t) => t.errors],
  ]);
  const latency = overTime('Latency over time', 'ms', [
    ['p50', '#16a34a', (t) => t.p50],
    ['p99', '#d97706', (t) => t.p99],
  ]);
  // Percentiles on an even scale, labelled with the percentile.
  const distribution = load.overall.distribution;
  const percentiles = lineChart({
    title: 'Latency percentiles (all operations)',
    xLabel: 'percentile',
    yLabel: 'ms',
    series: [{ label: 'latency', colour: '#7c3aed', points: distribution.map(([, ms], i) => [i, ms] as const) }],
    xTicks: distribution.map(([p], i) => [i, `${p}`] as const).filter((_, i) => i % 2 === 0 || i === distribution.length - 1),
  });
  return html`<article class="profile" id="load-${load.profile}">
<h3>Profile <code>${text(load.profile)}</code></h3>
<p class="muted">${text(load.description)}</p>
<ul class="load-facts">${facts.map((f) => html`<li>${f}</li>`)}</ul>
<table class="load">
<thead><tr><th>operation</th><th>requests</th><th>req/s</th><th>p50</th><th>p95</th><th>p99</th><th>max</th><th>errors</th><th>non-2xx / timeouts / socket</th></tr></thead>
<tbody>${row('all', load.overall)}${Object.entries(load.operations).map(([op, f]) => row(op, f))}</tbody>
</table>
<table class="thresholds"><thead><tr><th>outcome</th><th>threshold</th><th>expression</th><th>measured</th><th></th></tr></thead><tbody>${thresholds.length > 0 ? thresholds : html`<tr><td colspan="5">no thresholds</td></tr>`}</tbody></table>
<div class="charts">${throughput}${latency}${percentiles}</div>
</article>`;
}
