/**
 * The JUnit XML report (junit.xml), for CI test tabs (Jenkins, GitLab, GitHub
 * test-report actions, xunit-viewer). Valid against the Jenkins JUnit schema
 * (test/fixtures/junit/jenkins-junit.xsd).
 *
 * Mapping:
 * - One `<testsuite>` per rule group (in catalog group order), one `<testcase>`
 *   per rule: `classname` is `petstore.<group>` (a package, so Jenkins groups
 *   the rules by operation instead of filing them all under "(root)"), `name`
 *   is the rule id exactly (a CI's test history survives a reworded title;
 *   the title heads every failure's, warning's and skip's text). Load
 *   thresholds: `petstore.load.<profile>`, named by the threshold's id.
 * - `fail` → `<failure type="MUST|SHOULD" message="first finding">`, its text
 *   every failing check's findings with their evidence (request line, response
 *   status, headers and body excerpt, curl command), counterexample and re-run
 *   command.
 * - `inconclusive` and `skip` → `<skipped>` holding the reasons (the schema
 *   gives `skipped` no attributes, so the reason is its text).
 * - `error` (a check of the suite crashed) → `<error>` with the crash reasons.
 * - `pass` → an empty testcase; one with cases the suite could not decide
 *   says so in its `<system-out>` (`pass, 5 cases inconclusive:` and why each
 *   was), never a bare pass.
 * - The run's `<properties>` (tool.name, tool.version, interfaceVersion,
 *   target, seed, numRuns, strict, startedAt) are written once, on the first
 *   testsuite: the schema allows none on testsuites.
 * - Every testsuite has `timestamp` (when the run, or the load profile,
 *   started: ISO 8601 in UTC without a zone, as Ant writes it) and `hostname`
 *   (the machine the suite ran on).
 *
 * SHOULD warnings do not turn a test tab red unless the run was strict: when
 * `summary.strict` is false, a failing SHOULD rule is a passing testcase whose
 * `<system-out>` begins with "WARNING (SHOULD, not failing unless the run is strict):",
 * followed by the message and the text a `<failure>` would hold. With
 * `--strict` it is a `<failure>`, like a MUST rule.
 *
 * Counts: `tests`, `failures`, `errors`, `skipped` on each testsuite and
 * `tests`, `failures`, `errors` on testsuites (the schema has no `skipped`
 * there) count testcases. Times, in seconds: on testsuites, the run's
 * duration; on a rule group's testsuite, its wall time, shared by its rules'
 * testcases (reports/junit-times.ts); on the load testsuite, its profiles'
 * durations, each split evenly between its thresholds.
 *
 * Whatever a server sends, the XML is well-formed and its text reads back as
 * sent, except for characters XML 1.0 cannot carry (C0 controls other than
 * tab, newline and CR; U+FFFE, U+FFFF; lone surrogates): xmlbuilder2 replaces
 * each (`invalidCharReplacement`) with its JSON-style escape (`\u0000`,
 * `\ud800`), as JSON.stringify writes them in messages. U+FFFD (what the
 * evidence holds for bytes that were not UTF-8) is written `\ufffd` too:
 * xunit-viewer 10 sniffs a file holding U+FFFD as a legacy encoding and fails
 * to read it. xmlbuilder2 escapes `<`, `>` and `"` (so `]]>` too); line breaks
 * in text are written as `\n` (a parser turns CR and CRLF into `\n` anyway) and
 * in attributes as spaces (likewise); each text block is cut at 64 KiB of text
 * (UTF-8) with a marker saying so. One gap of xmlbuilder2 4 is closed here: its
 * writer leaves an `&` that starts something entity-like (`&amp;`, `&#0;`,
 * `&nbsp;`) unescaped, so a body holding `&#0;` would make the file ill-formed
 * and `&amp;` would read back as `&`; see reports/junit-text.ts. The evidence is
 * redacted before it reaches any reporter and the target holds no credentials;
 * nothing else is added here.
 */
import { hostname as machineName } from 'node:os';
import { create } from 'xmlbuilder2';
import { boundWords } from '../result/generator.js';
import { findingText } from '../spec/findings.js';
import { RULE_GROUPS } from '../spec/rules.js';
import type { CheckResult, ConformanceResult, Evidence, Finding, LoadResult, RuleResult, ThresholdResult } from '../result/model.js';
import { rerunCommand } from './commands.js';
import { fileReporter } from './file.js';
import { suiteTimes } from './junit-times.js';
import { ampersands, antTimestamp, attribute, block, escapeChar, seconds } from './junit-text.js';
import { REPORT_MARKERS } from './markers.js';
import { REPORT_FILES } from './names.js';
import { inconclusiveCases, outcomeLabel, ruleNotes, shownOutcome, thresholdMeasure } from '../result/policy.js';

export { MAX_TEXT_BYTES } from './junit-text.js';

/** junit.xml's name in the report directory. */
export const JUNIT_REPORT_FILE = REPORT_FILES.junit;

/** How a non-strict run's failing SHOULD rule begins its `<system-out>`. */
export const SHOULD_WARNING_PREFIX = 'WARNING (SHOULD, not failing unless the run is strict):';

/** A testcase's verdict as written: what the JUnit consumer will count it as. */
type CaseKind = 'passed' | 'failure' | 'warning' | 'waived' | 'error' | 'skipped';

type XMLBuilder = ReturnType<typeof create>;

/** The package of every classname: Jenkins shows `petstore` › `listPets` › rules. */
export const CLASSNAME_PACKAGE = 'petstore';

/** Options of {@link renderJunit}. */
export interface JunitOptions {
  /** The testsuites' `hostname`. Default: this machine's (os.hostname()). */
  hostname?: string;
}

/** junit.xml's text for a result. Pure: the same result (and hostname) gives the same XML. */
export function renderJunit(result: ConformanceResult, options: JunitOptions = {}): string {
  const host = options.hostname ?? machineName();
  const doc = create({ version: '1.0', encoding: 'UTF-8', invalidCharReplacement: escapeChar });
  const groups = groupRules(result.rules);
  const cases = groups.map(([, rules]) => rules.map((rule) => ({ rule, kind: caseKind(rule, result.summary.strict) })));
  const all = cases.flat();
  const thresholds = result.load.flatMap((load) =>
    load.thresholds.map((threshold) => ({ load, threshold, kind: thresholdKind(threshold) })),
  );
  const kinds = [...all.map((c) => c.kind), ...thresholds.map((t) => t.kind)];
  const root = doc.ele('testsuites', {
    name: ampersands(result.tool.name),
    tests: String(kinds.length),
    failures: String(kinds.filter((k) => k === 'failure').length),
    errors: String(kinds.filter((k) => k === 'error').length),
    time: seconds(result.durationMs),
  });
  // The run's properties, once: on the first testsuite (the schema gives testsuites none).
  let first = true;
  const properties = (suite: XMLBuilder) => {
    if (!first) return;
    first = false;
    const element = suite.ele('properties');
    for (const [name, value] of runProperties(result)) element.ele('property', { name, value: attribute(value) });
  };
  groups.forEach(([group], i) => {
    const groupCases = cases[i]!;
    const times = suiteTimes(
      groupCases.map((c) => c.rule),
      result.rules,
    );
    const suite = root.ele('testsuite', {
      name: ampersands(group),
      tests: String(groupCases.length),
      failures: String(groupCases.filter((c) => c.kind === 'failure').length),
      errors: String(groupCases.filter((c) => c.kind === 'error').length),
      skipped: String(groupCases.filter((c) => c.kind === 'skipped').length),
      time: seconds(times.suite),
      timestamp: antTimestamp(result.startedAt),
      hostname: attribute(host),
    });
    properties(suite);
    for (const { rule, kind } of groupCases) writeCase(suite, rule, kind, times.rules.get(rule.id) ?? 0, result);
  });
  if (thresholds.length > 0) {
    // One testcase per load threshold: a breach is a failure (it fails the run, exit 3).
    const thresholdTime = (load: LoadResult) => load.durationMs / Math.max(1, load.thresholds.length);
    const suite = root.ele('testsuite', {
      name: 'load',
      tests: String(thresholds.length),
      failures: String(thresholds.filter((t) => t.kind === 'failure').length),
      errors: '0',
      skipped: String(thresholds.filter((t) => t.kind === 'skipped').length),
      time: seconds(result.load.reduce((sum, load) => sum + (load.thresholds.length > 0 ? load.durationMs : 0), 0)),
      timestamp: antTimestamp(result.load[0]?.startedAt ?? result.startedAt),
      hostname: attribute(host),
    });
    properties(suite);
    for (const { load, threshold, kind } of thresholds) {
      const testcase = suite.ele('testcase', {
        name: ampersands(threshold.id),
        classname: ampersands(`${CLASSNAME_PACKAGE}.load.${load.profile}`),
        time: seconds(thresholdTime(load)),
      });
      const measured = `${threshold.expression}: ${thresholdMeasure(threshold)}`;
      const figures = loadFigures(load);
      if (kind === 'skipped') testcase.ele('skipped').txt(block(threshold.reason ?? 'inconclusive'));
      else if (kind === 'failure')
        testcase.ele('failure', { message: attribute(measured), type: 'threshold' }).txt(block(`${measured}\n\n${figures}`));
      else testcase.ele('system-out').txt(block(`${measured}\n\n${figures}`));
    }
  }
  return doc.end({ prettyPrint: true, wellFormed: true });
}

function thresholdKind(threshold: ThresholdResult): CaseKind {
  return threshold.outcome === 'pass' ? 'passed' : threshold.outcome === 'fail' ? 'failure' : 'skipped';
}

/** A profile's figures as text: overall and per operation, generator load, conformance under load. */
function loadFigures(load: LoadResult): string {
  const row = (label: string, f: LoadResult['overall']) =>
    `${label}: ${f.requests} requests, ${f.throughput} req/s, p50 ${f.latencyMs.p50} ms, p95 ${f.latencyMs.p95} ms, p99 ${f.latencyMs.p99} ms, max ${f.latencyMs.max} ms, errors ${(f.errorRate * 100).toFixed(2)}% (non-2xx ${f.errors.non2xx}, timeouts ${f.errors.timeouts}, socket errors ${f.errors.socketErrors})`;
  return [
    `profile ${load.profile} (${load.kind}, ${load.generator}), ${(load.durationMs / 1000).toFixed(1)} s`,
    row('all', load.overall),
    ...Object.entries(load.operations).map(([op, f]) => row(op, f)),
    `generator: ${Math.round(load.generatorLoad.cpuShare * 100)}% of a core, event-loop delay p99 ${load.generatorLoad.eventLoopDelayP99Ms} ms${load.generatorLoad.bound ? ` (${boundWords(load)})` : ''}`,
    `conformance under load: ${load.conformance.sampled} responses judged; failing rules: ${load.conformance.failedRules.join(', ') || 'none'}`,
  ].join('\n');
}

/** Writes junit.xml into the report directory. */
export const junitReporter = fileReporter(JUNIT_REPORT_FILE, REPORT_MARKERS.junit, (result) => renderJunit(result));

/** Rules by group: catalog groups first in their order, then any group the catalog does not list yet. */
function groupRules(rules: readonly RuleResult[]): [string, RuleResult[]][] {
  const byGroup = new Map<string, RuleResult[]>(RULE_GROUPS.map((g) => [g, []]));
  for (const rule of rules) {
    const list = byGroup.get(rule.group);
    if (list) list.push(rule);
    else byGroup.set(rule.group, [rule]);
  }
  return [...byGroup].filter(([, list]) => list.length > 0);
}

function caseKind(rule: RuleResult, strict: boolean): CaseKind {
  switch (shownOutcome(rule, strict)) {
    case 'pass':
      return 'passed';
    case 'fail':
      return 'failure';
    case 'warning':
      return 'warning';
    case 'waived':
      return 'waived';
    case 'error':
      return 'error';
    case 'inconclusive':
    case 'skip':
      return 'skipped';
  }
}

function runProperties(result: ConformanceResult): [string, string][] {
  return [
    ['tool.name', result.tool.name],
    ['tool.version', result.tool.version],
    ['interfaceVersion', result.interfaceVersion],
    ['target', result.target],
    ['seed', String(result.seed)],
    ['numRuns', String(result.numRuns)],
    ['strict', String(result.summary.strict)],
    ['startedAt', result.startedAt],
  ];
}

function writeCase(suite: XMLBuilder, rule: RuleResult, kind: CaseKind, timeMs: number, run: ConformanceResult): void {
  const testcase = suite.ele('testcase', {
    classname: attribute(`${CLASSNAME_PACKAGE}.${rule.group}`),
    name: attribute(rule.id),
    time: seconds(timeMs),
  });
  switch (kind) {
    case 'passed':
      if (inconclusiveCases(rule) > 0)
        testcase.ele('system-out').txt(block(`${outcomeLabel(rule, run.summary.strict)}:\n${skipText(rule)}`));
      return;
    case 'failure':
      testcase.ele('failure', { type: rule.severity, message: attribute(failureMessage(rule)) }).txt(block(failureText(rule, run)));
      return;
    case 'warning':
      testcase.ele('system-out').txt(block(`${SHOULD_WARNING_PREFIX} ${failureMessage(rule)}\n${failureText(rule, run)}`));
      return;
    case 'waived':
      // A known, tracked deviation: it does not fail the run, and says so where a CI user reads.
      testcase.ele('system-out').txt(block(`WAIVED (failing, covered by a waiver): ${failureMessage(rule)}\n${failureText(rule, run)}`));
      return;
    case 'error': {
      const reasons = rule.checks.filter((c) => c.outcome === 'error').map((c) => `${c.id}: ${c.reason ?? 'crashed'}`);
      testcase
        .ele('error', { type: 'suite-error', message: attribute(reasons[0] ?? `a check of ${rule.id} crashed`) })
        .txt(block([header(rule), ...reasons].join('\n')));
      return;
    }
    case 'skipped':
      testcase.ele('skipped').txt(block([...ruleNotes(rule, run.summary), skipText(rule)].join('\n')));
      return;
  }
}

function header(rule: RuleResult): string {
  return `${rule.id} (${rule.severity}) ${rule.title}\nsection: ${rule.section}`;
}

/** The first failing finding's message, or what failed when no finding was kept. */
function failureMessage(rule: RuleResult): string {
  const first = rule.checks.flatMap((c) => c.findings).find((f) => f.outcome === 'fail');
  return first ? findingText(first) : `${rule.id} failed`;
}

/** The text of a failure: each failing check, then each of its kept failing findings with the evidence. */
function failureText(rule: RuleResult, run: ConformanceResult): string {
  const parts = [header(rule), ...ruleNotes(rule, run.summary)];
  for (const check of rule.checks.filter((c) => c.outcome === 'fail')) {
    const findings = check.findings.filter((f) => f.outcome === 'fail');
    const kept = findings.length < check.failed ? ` (the first ${findings.length} kept)` : '';
    parts.push('', `check ${check.id} (${check.kind}): ${check.failed} failed, ${check.passed} passed${kept}`);
    for (const finding of findings) parts.push(describeFinding(finding, run));
    if (findings.length === 0 && check.reason) parts.push(check.reason);
  }
  return parts.join('\n');
}

function describeFinding(finding: Finding, run: ConformanceResult): string {
  const lines: string[] = [findingText(finding)];
  for (const evidence of finding.evidence) lines.push(...describeEvidence(evidence));
  const ce = finding.counterexample;
  if (ce)
    lines.push(`counterexample (seed ${ce.seed}, path ${ce.path}, after ${ce.numRuns} runs and ${ce.numShrinks} shrinks): ${ce.input}`);
  lines.push(`re-run: ${rerunCommand(run, finding.rerun)}`);
  return lines.join('\n');
}

/** One exchange. Bodies are kept as sent (not indented), so what the server sent reads as it was. */
function describeEvidence(evidence: Evidence): string[] {
  const { request, response } = evidence;
  const lines: string[] = [`request #${evidence.seq}: ${request.method} ${request.url}`];
  if (request.body !== undefined) lines.push(`request body (${request.bodyBytes} bytes):`, request.body);
  if (response) {
    lines.push(
      `response: ${response.status} (${response.bodyBytes} bytes${response.truncated ? ', read up to the limit' : ''}, ${evidence.durationMs} ms)`,
    );
    for (const [name, value] of Object.entries(response.headers)) lines.push(`  ${name}: ${value}`);
    lines.push('response body:', response.body);
  }
  if (evidence.transportError !== undefined) lines.push(`no response: ${evidence.transportError}`);
  lines.push(`reproduce: ${evidence.curl}`);
  return lines;
}

/** Why a rule was not decided: each check's reason, and the inconclusive findings' messages. */
function skipText(rule: RuleResult): string {
  const lines = [header(rule)];
  for (const check of rule.checks) lines.push(...checkSkipReasons(check));
  return lines.join('\n');
}

function checkSkipReasons(check: CheckResult): string[] {
  const lines: string[] = [];
  if (check.reason) lines.push(`${check.id}: ${check.reason}`);
  for (const finding of check.findings.filter((f) => f.outcome === 'inconclusive')) lines.push(`${check.id}: ${findingText(finding)}`);
  if (lines.length === 0 && check.outcome !== 'pass') lines.push(`${check.id}: ${check.outcome}`);
  return lines;
}
