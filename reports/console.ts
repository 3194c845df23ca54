import { styleText } from 'node:util';
import { boundWords } from '../result/generator.js';
import type { ConformanceResult, Finding, LoadFigures, LoadResult, Outcome, RuleResult, RunEvent } from '../result/model.js';
import { findingText } from '../spec/findings.js';
import { plural } from './components.js';
import { replayCommand, rerunCommand } from './commands.js';
import type { Reporter, ReporterContext } from './reporter.js';
import { inconclusiveCases, outcomeLabel, shownCounts, shownOutcome, thresholdMeasure, undecidedText } from '../result/policy.js';

/** Failing rules listed in full at the end; the rest are counted. */
const MAX_FAILING_LISTED = 30;

/** The colours the console uses: failures, warnings, passes, errors. */
type Colour = 'red' | 'yellow' | 'green' | 'magenta';
type Paint = (colour: Colour, text: string) => string;

/** Node's own styling (`util.styleText`, its stream check off), or none: whether to colour is the caller's (--color, NO_COLOR, FORCE_COLOR, the terminal). */
const painter = (color: boolean): Paint =>
  color ? (colour, text) => styleText(colour, text, { validateStream: false }) : (_colour, text) => text;

/** The verdict line: `CONFORMANT: 24 of 24 MUST rules passed` (all `--quiet` prints). */
export function renderVerdictLine(result: ConformanceResult, color: boolean): string {
  const { summary } = result;
  return `${painter(color)(summary.verdict === 'conformant' ? 'green' : summary.verdict === 'inconclusive' ? 'yellow' : 'red', summary.verdict.toUpperCase())}: ${summary.reason}`;
}

/** The end-of-run summary: verdict, counts, each failing rule with its first evidence and how to reproduce it. */
export function renderSummary(result: ConformanceResult, written: readonly string[], color: boolean): string {
  const paint = painter(color);
  const { summary } = result;
  const lines: string[] = [];
  lines.push(`${result.tool.name} ${result.tool.version} · Animal Store Service ${result.interfaceVersion}`);
  lines.push(`target ${result.target} · seed ${result.seed} · ${summary.requests} requests in ${(result.durationMs / 1000).toFixed(1)} s`);
  lines.push('');
  lines.push(renderVerdictLine(result, color));
  const failing = result.rules.filter((r) => r.outcome === 'fail' || r.outcome === 'error');
  const report = written.find((path) => path.endsWith('report.json'));
  for (const rule of failing.slice(0, MAX_FAILING_LISTED)) lines.push('', ...describeRule(rule, paint, result, report));
  if (failing.length > MAX_FAILING_LISTED) lines.push('', `… and ${failing.length - MAX_FAILING_LISTED} more in the reports`);
  for (const waiver of result.waivers) {
    const mark = waiver.status === 'applied' ? paint('yellow', 'W') : paint('red', '!');
    lines.push(
      '',
      `${mark} waiver ${waiver.status}: ${waiver.rule}${waiver.operation ? ` on ${waiver.operation}` : ''}, ${waiver.note}`,
      `    ${waiver.reason} (${waiver.issue}, expires ${waiver.expires})`,
    );
  }
  const undecided = summary.undecided ?? [];
  if (undecided.length > 0) lines.push('', ...undecided.map((u) => `${paint('yellow', '?')} ${u.rule} ${undecidedText(u)}`));
  const open = result.rules.filter(
    (r) => (r.outcome === 'inconclusive' && !undecided.some((u) => u.rule === r.id)) || (r.outcome === 'pass' && inconclusiveCases(r) > 0),
  );
  if (open.length > 0) lines.push('', `inconclusive: ${open.map((r) => `${r.id} (${outcomeLabel(r, summary.strict)})`).join(', ')}`);
  lines.push('');
  const shown = shownCounts(summary.counts, summary.strict);
  const count = (severity: 'MUST' | 'SHOULD') =>
    Object.entries(shown[severity])
      .filter(([, n]) => n > 0)
      .map(([outcome, n]) => `${n} ${outcome}`)
      .join(', ') || 'none';
  for (const load of result.load) lines.push(...describeLoad(load, paint), '');
  lines.push(
    `rules: MUST ${count('MUST')} · SHOULD ${count('SHOULD')}${result.observations.length ? ` · ${result.observations.length} observations` : ''}`,
  );
  if (written.length > 0) lines.push(`reports: ${written.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function describeRule(rule: RuleResult, paint: Paint, run: ConformanceResult, report: string | undefined): string[] {
  const warning = shownOutcome(rule, run.summary.strict) === 'warning';
  const mark = rule.outcome === 'error' ? paint('magenta', 'E') : warning ? paint('yellow', '!') : paint('red', '✗');
  const lines = [`${mark} ${rule.id} (${rule.severity}${warning ? ', warning' : ''}) ${rule.title}`];
  for (const d of rule.diagnoses ?? []) lines.push(`    diagnosis: ${d.text}`);
  const checks = rule.checks.filter((c) => c.outcome === 'fail' || c.outcome === 'error');
  for (const check of checks) {
    const finding: Finding | undefined = check.findings.find((f) => f.outcome === 'fail');
    if (!finding) {
      lines.push(`    ${check.id}: ${check.reason ?? check.outcome}`);
      continue;
    }
    const more = check.failed > 1 ? ` (${check.failed} failures)` : '';
    lines.push(`    ${findingText(finding)}${more}`);
    if (finding.counterexample) lines.push(`    counterexample: ${finding.counterexample.input.slice(0, 200)}`);
    const evidence = finding.evidence.at(-1);
    if (evidence) lines.push(`    reproduce: ${evidence.curl.length > 400 ? `${evidence.curl.slice(0, 400)}…` : evidence.curl}`);
    lines.push(`    re-run: ${rerunCommand(run, finding.rerun)}`);
    if (finding.case && report) lines.push(`    replay: ${replayCommand(report, finding.case.id, run.target)}`);
  }
  return lines;
}

const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(0)} ms`;

function describeFigures(label: string, f: LoadFigures): string {
  const errors = f.errors.non2xx + f.errors.timeouts + f.errors.socketErrors;
  const kinds = errors ? ` (${f.errors.non2xx} non-2xx, ${f.errors.timeouts} timeouts, ${f.errors.socketErrors} socket errors)` : '';
  return `${label.padEnd(10)} ${String(f.requests).padStart(8)} req ${f.throughput.toFixed(0).padStart(7)} req/s  p50 ${ms(f.latencyMs.p50)}  p95 ${ms(f.latencyMs.p95)}  p99 ${ms(f.latencyMs.p99)}  max ${ms(f.latencyMs.max)}  errors ${(f.errorRate * 100).toFixed(2)}%${kinds}`;
}

/** A load profile's figures, thresholds and conformance under load. */
function describeLoad(load: LoadResult, paint: Paint): string[] {
  const lines = [
    `load profile "${load.profile}" (${load.kind}, ${load.generator}, ${(load.durationMs / 1000).toFixed(1)} s): ${load.description}`,
  ];
  lines.push(`  ${describeFigures('all', load.overall)}`);
  for (const [op, f] of Object.entries(load.operations)) if (f.requests > 0) lines.push(`  ${describeFigures(op, f)}`);
  if (load.answered) lines.push(`  answered: ${load.answered.answered} of ${load.answered.due} requests due`);
  if (load.schedule)
    lines.push(
      `  schedule: ${load.schedule.sent} of ${load.schedule.due} due requests sent, ${load.schedule.dropped} dropped (all connections busy), ${load.schedule.late} late`,
    );
  for (const t of load.thresholds) {
    const mark = t.outcome === 'pass' ? paint('green', '✓') : t.outcome === 'fail' ? paint('red', '✗') : paint('yellow', '?');
    lines.push(`  ${mark} ${t.id}: ${t.expression}, ${thresholdMeasure(t)}`);
  }
  if (load.brokeAt)
    lines.push(`  broke at stage ${load.brokeAt.stage} (${load.brokeAt.connections} connections): ${load.brokeAt.thresholds.join('; ')}`);
  if (load.drift)
    lines.push(
      `  drift: p99 ×${load.drift.p99Ratio} from the first tenth to the last, error rate ${load.drift.errorRateDelta >= 0 ? '+' : ''}${(load.drift.errorRateDelta * 100).toFixed(2)} points`,
    );
  const { conformance } = load;
  lines.push(
    `  conformance under load: ${conformance.sampled} responses judged${conformance.failedRules.length ? `, ${paint('red', `rules failing under load: ${conformance.failedRules.join(', ')}`)}` : ', every rule held'}`,
  );
  const g = load.generatorLoad;
  lines.push(
    `  generator: ${Math.round(g.cpuShare * 100)}% of a core, event-loop delay p99 ${g.eventLoopDelayP99Ms} ms${g.bound ? paint('yellow', ` — ${boundWords(load)}`) : ''}`,
  );
  if (load.stoppedEarly) lines.push(`  stopped early: ${load.stoppedEarly}`);
  return lines;
}

/** A phase's end: `· listPets ended in 3.2 s: 7 rules, 6 passed, 1 failed (LIST-LIMIT-DEFAULT)`. */
export function phaseEndLine(event: Extract<RunEvent, { type: 'phase-end' }>): string {
  const words: [Outcome, string][] = [
    ['pass', 'passed'],
    ['fail', 'failed'],
    ['error', 'errored'],
    ['inconclusive', 'inconclusive'],
    ['skip', 'skipped'],
  ];
  const counts = words.filter(([o]) => (event.rules[o] ?? 0) > 0).map(([o, word]) => `${event.rules[o]} ${word}`);
  const total = Object.values(event.rules).reduce((a, b) => a + (b ?? 0), 0);
  const failed = event.failed.length ? ` (${event.failed.join(', ')})` : '';
  const seconds = (event.durationMs / 1000).toFixed(1);
  return `· ${event.phase} ended in ${seconds} s: ${total === 0 ? 'no rule judged' : `${plural(total, 'rule')}, ${counts.join(', ')}`}${failed}`;
}

/**
 * Progress while the suite runs: on a TTY one line showing the phases under
 * way, redrawn as their checks finish; otherwise (pipes, CI) plain lines as
 * each phase starts and ends, each failing rule and a heartbeat. Then the summary.
 */
export function consoleReporter(ctx: ReporterContext): Reporter {
  const verbosity = ctx.verbosity ?? 'normal';
  const paintFor = painter(ctx.color);
  // Phases under way (listPets, storeOrders and auth run side by side), each with its checks ended.
  const running = new Map<string, { done: number; total: number }>();
  const clear = ctx.interactive ? '\r\u001b[2K' : '';
  const draw = (final = false) => {
    const text = [...running].map(([name, p]) => `· ${name} ${p.done}/${p.total} checks`).join('  ');
    ctx.progress.write(`\r\u001b[2K${text}${final ? '\n' : ''}`);
  };
  const redraw = () => {
    if (ctx.interactive && running.size > 0) draw();
  };
  const endPhase = () => {
    if (ctx.interactive && running.size > 0) draw(true);
    running.clear();
  };
  return {
    onEvent(event) {
      if (verbosity === 'quiet') return;
      switch (event.type) {
        case 'exchange':
          if (verbosity !== 'verbose') break;
          ctx.progress.write(`${clear}  ${event.line}\n`);
          redraw();
          break;
        case 'run-start':
          ctx.progress.write(`testing ${event.target} (seed ${event.seed})\n`);
          break;
        case 'phase-start':
          running.set(event.phase, { done: 0, total: event.checks });
          if (ctx.interactive) draw();
          else ctx.progress.write(`· ${event.phase} (${plural(event.checks, 'check')})\n`);
          break;
        case 'load-start':
          endPhase();
          ctx.progress.write(`· load profile "${event.profile}" (${event.durationSec} s)\n`);
          break;
        case 'load-tick': {
          const line = `  ${event.elapsedSec}/${event.durationSec} s · ${event.requests} requests · ${event.throughput} req/s · p99 ${event.p99Ms} ms`;
          if (ctx.interactive) {
            const width = 20;
            const filled = Math.min(width, Math.round((event.elapsedSec / Math.max(1, event.durationSec)) * width));
            ctx.progress.write(`\r\u001b[2K  [${'#'.repeat(filled)}${'.'.repeat(width - filled)}]${line}`);
          } else if (event.elapsedSec % 5 === 0) {
            ctx.progress.write(`${line}\n`);
          }
          break;
        }
        case 'load-end':
          if (ctx.interactive) ctx.progress.write('\n');
          break;
        case 'rule-failed': {
          const mark = event.severity === 'MUST' ? paintFor('red', '✗') : paintFor('yellow', '!');
          ctx.progress.write(`${clear}  ${mark} ${event.rule} (${event.severity}) failed, in check ${event.check}\n`);
          redraw();
          break;
        }
        case 'phase-end':
          running.delete(event.phase);
          ctx.progress.write(`${clear}${phaseEndLine(event)}\n`);
          redraw();
          break;
        case 'heartbeat':
          // A TTY's line is redrawn as checks end; a CI log gets this line instead, at most every 10 s.
          if (!ctx.interactive) ctx.progress.write(`  … ${plural(event.requests, 'request')} sent, ${event.elapsedSec} s\n`);
          break;
        case 'check-end': {
          const phase = running.get(event.phase);
          if (phase) phase.done++;
          if (event.error) ctx.progress.write(`${clear}  ${event.check}: ${event.error}\n`);
          redraw();
          break;
        }
      }
    },
    onRunEnd(result, written) {
      endPhase();
      // An aborted run is told in one line by the CLI; a summary would only repeat it.
      if (result.summary.abort) return [];
      ctx.out.write(verbosity === 'quiet' ? `${renderVerdictLine(result, ctx.color)}\n` : renderSummary(result, written, ctx.color));
      return [];
    },
  };
}
