/**
 * GitHub Actions: workflow commands (`::error` for failing rules and breached
 * load thresholds, `::warning` for SHOULD warnings, stale waivers and
 * thresholds that could not be measured), and a Markdown summary appended to
 * $GITHUB_STEP_SUMMARY (a regular file, never a link: core/safe-write.ts
 * `appendToFile`): the verdict (its heading follows the exit code), the
 * rules, and a table of the load profiles. Does nothing unless
 * GITHUB_ACTIONS=true.
 */
import { appendToFile } from '../core/safe-write.js';
import type { ConformanceResult, LoadResult, ThresholdResult } from '../result/model.js';
import { findingText } from '../spec/findings.js';
import { rerunCommand } from './commands.js';
import type { Reporter, ReporterContext } from './reporter.js';
import {
  EXIT,
  exitCode,
  outcomeLabel,
  ruleNotes,
  type ShownOutcome,
  shownOutcome,
  thresholdMeasure,
  thresholdMeasured,
  undecidedText,
} from '../result/policy.js';

/** Escapes workflow-command data (`%`, CR, LF) and, for properties, `:` and `,`. */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** The workflow commands of a result: one per failing rule (error) or SHOULD warning (warning). */
export function renderAnnotations(result: ConformanceResult): string {
  const lines: string[] = [];
  for (const rule of result.rules.filter((r) => r.outcome === 'fail' || r.outcome === 'error')) {
    const warning = shownOutcome(rule, result.summary.strict) === 'warning';
    const finding = rule.checks.flatMap((c) => c.findings).find((f) => f.outcome === 'fail');
    const message = finding
      ? `${(rule.diagnoses ?? []).map((d) => `diagnosis: ${d.text}\n`).join('')}${findingText(finding)}\n${finding.evidence.at(-1)?.curl ?? ''}\n${rerunCommand(result, finding.rerun)}`
      : (rule.checks.find((c) => c.reason)?.reason ?? rule.outcome);
    lines.push(
      `::${warning ? 'warning' : 'error'} title=${escapeProperty(`${rule.id} (${rule.severity}) ${rule.title}`)}::${escapeData(message)}`,
    );
  }
  for (const u of result.summary.undecided ?? []) {
    const rule = result.rules.find((r) => r.id === u.rule);
    lines.push(
      `::warning title=${escapeProperty(`${u.rule} (${rule?.severity ?? ''}) decided on no case`)}::${escapeData(undecidedText(u))}`,
    );
  }
  for (const waiver of result.waivers.filter((w) => w.status !== 'applied')) {
    lines.push(
      `::warning title=${escapeProperty(`waiver for ${waiver.rule} is ${waiver.status}`)}::${escapeData(`${waiver.note} (${waiver.issue})`)}`,
    );
  }
  for (const rule of result.rules.filter((r) => r.outcome === 'waived')) {
    const waiver = result.waivers.find((w) => w.rule === rule.id && w.status === 'applied');
    lines.push(
      `::notice title=${escapeProperty(`${rule.id} waived`)}::${escapeData(`${rule.title}: failing, waived until ${waiver?.expires ?? '?'} (${waiver?.issue ?? ''})`)}`,
    );
  }
  // A failed threshold, breached or not computed, fails the run (exit 3): an error. An inconclusive one is said as a warning.
  for (const load of result.load) {
    for (const t of load.thresholds.filter((x) => x.outcome !== 'pass')) {
      const failed = t.outcome === 'fail';
      lines.push(
        `::${failed ? 'error' : 'warning'} title=${escapeProperty(`${t.id} ${thresholdMeasured(t) ? 'load threshold breached' : 'load threshold not measured'}`)}::${escapeData(`profile ${load.profile}: ${t.expression}, ${thresholdMeasure(t)}`)}`,
      );
    }
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}

const SHOWN_ICON: Record<ShownOutcome, string> = {
  pass: '✅',
  fail: '❌',
  warning: '⚠️',
  inconclusive: '❔',
  error: '💥',
  skip: '⏭️',
  waived: '🏳️',
};

/** The summary's heading follows the exit code: a threshold breach is not a green tick. */
function headline(summary: ConformanceResult['summary']): string {
  const code = exitCode(summary);
  if (code === EXIT.conformant) return `✅ ${summary.verdict}`;
  if (code === EXIT.thresholdBreached) return `⚠️ ${summary.verdict}, load threshold breached (exit ${code})`;
  if (code === EXIT.inconclusive) return `❔ ${summary.verdict}: MUST rules decided on no case (exit ${code})`;
  return `❌ ${summary.verdict} (exit ${code})`;
}

/** The job summary in Markdown. */
export function renderStepSummary(result: ConformanceResult): string {
  const { summary } = result;
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const lines = [
    `## petstore-conformance: ${headline(summary)}`,
    '',
    `${cell(summary.reason)}`,
    '',
    `Target \`${result.target}\` · interface ${result.interfaceVersion} · seed ${result.seed} · ${summary.requests} requests`,
    '',
    '| Rule | Severity | Outcome | Title |',
    '|---|---|---|---|',
  ];
  const order = ['fail', 'error', 'waived', 'inconclusive', 'skip', 'pass'];
  const sorted = [...result.rules].sort((a, b) => order.indexOf(a.outcome) - order.indexOf(b.outcome));
  for (const rule of sorted) {
    const shown = shownOutcome(rule, summary.strict);
    const notes = ruleNotes(rule, summary);
    lines.push(
      `| ${rule.id} | ${rule.severity} | ${SHOWN_ICON[shown]} ${outcomeLabel(rule, summary.strict)}${notes.length ? `<br>${cell(notes.join('; '))}` : ''} | ${cell(rule.title)} |`,
    );
  }
  lines.push(...renderLoadTable(result.load, result.skippedPhases.find((p) => p.phase === 'load')?.reason));
  return `${lines.join('\n')}\n`;
}

const THRESHOLD_ICON: Record<ThresholdResult['outcome'], string> = { pass: '✅', fail: '❌', inconclusive: '❔' };

const millis = (ms: number) => `${ms < 10 ? ms.toFixed(2) : ms.toFixed(0)} ms`;

/** The load profiles as a Markdown table: one row per profile with its figures and every threshold. */
export function renderLoadTable(loads: readonly LoadResult[], notRun?: string): string[] {
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  if (loads.length === 0) return notRun && notRun !== 'load profile "none"' ? ['', '### Load', '', cell(notRun)] : [];
  const lines = [
    '',
    '### Load',
    '',
    '| Profile | Requests | Throughput | p50 | p99 | Error rate | Thresholds |',
    '|---|---:|---:|---:|---:|---:|---|',
  ];
  for (const load of loads) {
    const f = load.overall;
    const shape =
      load.kind === 'rate'
        ? `rate ${load.settings.rate}/s`
        : load.kind === 'ramp'
          ? `ramp to ${Math.max(...(load.settings.stages ?? [load.settings.connections]))} connections`
          : `${load.settings.connections} connections`;
    const thresholds =
      load.thresholds.map((t) => `${THRESHOLD_ICON[t.outcome]} \`${t.expression}\` (${thresholdMeasure(t)})`).join('<br>') || 'none';
    const notes = [
      load.generatorLoad.bound ? 'generator-bound' : '',
      load.brokeAt ? `broke at ${load.brokeAt.connections} connections` : '',
      load.stoppedEarly ? `stopped early: ${load.stoppedEarly}` : '',
    ].filter(Boolean);
    lines.push(
      `| ${cell(load.profile)} (${load.kind}, ${shape}, ${(load.durationMs / 1000).toFixed(1)} s)${notes.length ? `<br>${cell(notes.join('; '))}` : ''} | ${f.requests} | ${f.throughput.toFixed(1)}/s | ${millis(f.latencyMs.p50)} | ${millis(f.latencyMs.p99)} | ${(f.errorRate * 100).toFixed(2)}% | ${cell(thresholds)} |`,
    );
  }
  return lines;
}

export function githubReporter(ctx: ReporterContext): Reporter {
  return {
    async onRunEnd(result) {
      if (ctx.env.GITHUB_ACTIONS !== 'true') return [];
      // Workflow commands are read from stdout (and, observed, stderr): the console stream, which is stderr when --json owns stdout.
      ctx.out.write(renderAnnotations(result));
      const file = ctx.env.GITHUB_STEP_SUMMARY;
      if (!file) return [];
      // The runner gives the file and reads it after the step: appended to, as GitHub documents, and only when it is a
      // regular file (a link there is refused, as at every path the suite writes).
      await appendToFile(file, renderStepSummary(result), { label: 'GITHUB_STEP_SUMMARY' });
      return [];
    },
  };
}
