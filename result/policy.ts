/**
 * The verdict policy, in one place: how a rule's outcome is shown (a failing
 * SHOULD rule is a warning unless the run is strict), the run's verdict and its
 * reason, the exit code, and the certificate decision. Reporters, the matrix,
 * the CLI, certify and verify ask this module; none re-derives it. Whether a
 * threshold was measured, and its measure in words, are result/thresholds.ts
 * (asked through here).
 *
 * Pure functions over the result model; no I/O.
 */
import { FINGERPRINT_IDS } from '../core/fingerprints.js';
import type { RuleId, Severity } from '../spec/rules.js';
import type { ConformanceResult, LoadResult, RuleOutcome, RuleResult, Summary, UndecidedRule, Verdict } from './model.js';
import type { InterruptSignal } from './reasons.js';
import { undecidedRules, undecidedText } from './undecided.js';

export { NOT_MEASURED, thresholdMeasure, thresholdMeasured } from './thresholds.js';

/** The one phrase of an undecided rule, for reporters (they ask the policy, never result/undecided.ts). */
export { undecidedText };

/** A rule's outcome as every output shows it. */
export type ShownOutcome = RuleOutcome | 'warning';

/** Shown outcomes in the order outputs list them: what needs attention first. */
export const SHOWN_ORDER: readonly ShownOutcome[] = ['fail', 'error', 'waived', 'warning', 'inconclusive', 'pass', 'skip'];

/** The process exit codes of a run. */
export const EXIT = {
  /** Every MUST rule that ran passed (and every SHOULD rule under --strict); thresholds met. */
  conformant: 0,
  /** A rule failed that counts against conformance. */
  nonConformant: 1,
  /** The suite could not test the target, or not fully (usage, unreachable, lost, crashed, out of time). */
  error: 2,
  /** Conformant, but a load threshold was breached or could not be measured. */
  thresholdBreached: 3,
  /** Nothing failed, but a selected MUST rule (not waived) was decided on no case: see `summary.undecided`. */
  inconclusive: 4,
  /** Stopped by SIGINT (128 + 2). */
  interruptedInt: 130,
  /** Stopped by SIGTERM (128 + 15). */
  interruptedTerm: 143,
  /** Stopped by SIGHUP (128 + 1): the terminal or the session that ran it went away. */
  interruptedHup: 129,
} as const;

/**
 * How a rule's outcome is shown: a failing SHOULD rule is a `warning` unless the
 * run was strict. An outcome outside the union (a hand-edited report) is an
 * `error`, never a pass.
 */
export function shownOutcome(rule: Pick<RuleResult, 'outcome' | 'severity'>, strict: boolean): ShownOutcome {
  if (!SHOWN_ORDER.includes(rule.outcome) || (rule.outcome as ShownOutcome) === 'warning') return 'error';
  return rule.outcome === 'fail' && rule.severity === 'SHOULD' && !strict ? 'warning' : rule.outcome;
}

/** The shown outcomes a rule of `severity` can have: a SHOULD rule shows `warning` instead of `fail` unless strict. */
export function shownOutcomesOf(severity: Severity, strict: boolean): ShownOutcome[] {
  const outcomes = SHOWN_ORDER.filter((o): o is RuleOutcome => o !== 'warning');
  return [...new Set(outcomes.map((outcome) => shownOutcome({ outcome, severity }, strict)))];
}

/** Rules counted by severity and shown outcome (`SHOULD: { pass: 7, warning: 1 }`), as every output shows the counts. */
export function shownCounts(counts: Summary['counts'], strict: boolean): Record<Severity, Partial<Record<ShownOutcome, number>>> {
  const shown: Record<Severity, Partial<Record<ShownOutcome, number>>> = { MUST: {}, SHOULD: {} };
  for (const severity of Object.keys(shown) as Severity[]) {
    for (const [outcome, n] of Object.entries(counts[severity] ?? {}) as [RuleOutcome, number][]) {
      const as = shownOutcome({ outcome, severity }, strict);
      shown[severity][as] = (shown[severity][as] ?? 0) + n;
    }
  }
  return shown;
}

/** True when the rule's outcome fails the run: a failing MUST rule, or a failing SHOULD rule under --strict. */
export function failsRun(rule: Pick<RuleResult, 'outcome' | 'severity'>, strict: boolean): boolean {
  return shownOutcome(rule, strict) === 'fail';
}

/** Cases the suite could not decide for this rule, over all its checks. */
export function inconclusiveCases(rule: Pick<RuleResult, 'checks'>): number {
  return rule.checks.reduce((n, c) => n + c.inconclusive, 0);
}

/**
 * The rule's outcome in words, never a bare pass when some of its cases could
 * not be decided: `pass, 5 cases inconclusive`, `warning`, `fail`.
 */
export function outcomeLabel(rule: Pick<RuleResult, 'outcome' | 'severity' | 'checks'>, strict: boolean): string {
  const shown = shownOutcome(rule, strict);
  const open = inconclusiveCases(rule);
  if (open === 0 || shown === 'inconclusive') return shown;
  return `${shown}, ${open} case${open === 1 ? '' : 's'} inconclusive`;
}

/** `pass` when every threshold of every profile was met, `fail` when one was breached or unmeasured, `none` without load. */
export function thresholdsOutcome(loads: readonly LoadResult[]): Summary['thresholds'] {
  if (loads.length === 0) return 'none';
  return loads.some((l) => l.thresholds.some((t) => t.outcome === 'fail')) ? 'fail' : 'pass';
}

/** What the verdict is computed from. */
export interface VerdictInput {
  rules: readonly RuleResult[];
  strict: boolean;
  /** The target could not be tested at all. */
  abort?: Summary['abort'];
  /** Why the run stopped before its end (target lost, time bound, interruption), when it did. */
  stopped?: string;
  /** The signal that interrupted the run, when one did: the verdict is then `interrupted`, whatever ran. */
  interrupted?: InterruptSignal;
  loads: readonly LoadResult[];
  /** Rules a waiver names (and has not expired): one of them undecided does not make the run inconclusive. */
  waived?: readonly RuleId[];
}

/** Ids in a reason: the first `most`, and how many more. */
const listed = (ids: readonly string[], most = 6) =>
  `${ids.slice(0, most).join(', ')}${ids.length > most ? ` and ${ids.length - most} more` : ''}`;

/**
 * The run's verdict and why, in one line.
 * - `non-conformant`: a rule that counts failed ({@link failsRun});
 * - `interrupted`: SIGINT, SIGTERM or SIGHUP stopped the run; the reason says what ran
 *   and what it found so far (a partial run is never conformant, nor
 *   non-conformant: it was not finished);
 * - `error`: the target could not be tested, the run stopped early, a check
 *   crashed, or no MUST rule could be decided at all (a run that tested nothing
 *   never reads as conformant);
 * - `inconclusive`: nothing failed, but a selected MUST rule that no waiver
 *   names was decided on no case ({@link gatingUndecided}): undecided is never
 *   green; the reason names each with its cause;
 * - `conformant` otherwise, with what was inconclusive, skipped, waived or a warning said.
 */
export function decideVerdict(input: VerdictInput): { verdict: Verdict; reason: string; undecided: UndecidedRule[] } {
  const undecided = undecidedRules(input.rules);
  return { ...verdictOf(input, undecided), undecided };
}

/** The undecided rules that make a run inconclusive: MUST rules no waiver names. */
export function gatingUndecided(
  undecided: readonly UndecidedRule[],
  rules: readonly Pick<RuleResult, 'id' | 'severity'>[],
  waived: readonly RuleId[] = [],
): UndecidedRule[] {
  const must = new Set(rules.filter((r) => r.severity === 'MUST').map((r) => r.id));
  return undecided.filter((u) => must.has(u.rule) && !waived.includes(u.rule));
}

/**
 * Undecided rules in words, grouped by their phrase, as the headline names
 * them: `CREATE-ECHO, GET-RESPONSE (not judged: createPet never answered 201;
 * see CREATE-RESPONSE)`.
 */
export function undecidedList(undecided: readonly UndecidedRule[]): string {
  const by = new Map<string, RuleId[]>();
  for (const u of undecided) by.set(undecidedText(u), [...(by.get(undecidedText(u)) ?? []), u.rule]);
  return [...by].map(([text, ids]) => `${listed(ids, 8)} (${text})`).join('; ');
}

/**
 * What every report shows next to a rule besides its outcome: why it was
 * decided on no case (`not judged: …; see …`) and its diagnoses.
 */
export function ruleNotes(rule: Pick<RuleResult, 'id' | 'diagnoses'>, summary: Pick<Summary, 'undecided'>): string[] {
  const undecided = summary.undecided?.find((u) => u.rule === rule.id);
  return [...(undecided ? [undecidedText(undecided)] : []), ...(rule.diagnoses ?? []).map((d) => `diagnosis: ${d.text}`)];
}

function verdictOf(input: VerdictInput, undecided: readonly UndecidedRule[]): { verdict: Verdict; reason: string } {
  const { rules, strict, abort, stopped } = input;
  const ids = (pick: (r: RuleResult) => boolean) => rules.filter(pick).map((r) => r.id);
  if (input.interrupted) {
    const decided = rules.filter((r) => r.outcome !== 'skip').length;
    const failed = ids((r) => failsRun(r, strict));
    return {
      verdict: 'interrupted',
      reason: `interrupted by ${input.interrupted}: ${decided} of ${rules.length} rules decided before it, the rest not run${failed.length ? `; failing so far: ${listed(failed)}` : ''}${abort ? `; ${abort.message}` : ''}`,
    };
  }
  if (abort) return { verdict: 'error', reason: abort.message };
  const failedMust = ids((r) => r.severity === 'MUST' && r.outcome === 'fail');
  const failedShould = ids((r) => r.severity === 'SHOULD' && r.outcome === 'fail');
  const errored = ids((r) => r.outcome === 'error');
  // A rule the run did not ask (CLIENT-INDEPENDENT in a run that speaks as one client) is not counted: the question was not put.
  const must = rules.filter((r) => r.severity === 'MUST' && !notAsked(r));
  const passedMust = must.filter((r) => r.outcome === 'pass' || r.outcome === 'waived');
  let verdict: Verdict;
  let reason: string;
  if (failedMust.length > 0 || (strict && failedShould.length > 0)) {
    verdict = 'non-conformant';
    const parts = [
      failedMust.length ? `${failedMust.length} MUST rule(s) failed: ${listed(failedMust)}` : '',
      strict && failedShould.length
        ? `${failedShould.length} SHOULD rule(s) failed, and strict mode counts them: ${listed(failedShould)}`
        : '',
    ];
    reason =
      parts.filter(Boolean).join('; ') +
      (stopped ? `; then ${stopped}, and the rest was not run` : '') +
      (undecided.length && !stopped ? `; ${undecided.length} rule(s) decided on no case: ${undecidedList(undecided)}` : '');
  } else if (stopped) {
    verdict = 'error';
    reason = `${stopped}; what was measured before is kept, the rest was not run`;
  } else if (errored.length > 0) {
    verdict = 'error';
    reason = `the suite could not judge ${listed(errored)}: a check crashed`;
  } else if (passedMust.length === 0) {
    verdict = 'error';
    reason = `no MUST rule could be decided (${must.length === 0 ? 'none was selected' : `${must.length} MUST rule(s): ${countWords(must)}`}): the run tested nothing`;
  } else if (gatingUndecided(undecided, rules, input.waived).length > 0) {
    const gating = gatingUndecided(undecided, rules, input.waived);
    verdict = 'inconclusive';
    reason = `${gating.length} MUST rule(s) decided on no case: ${undecidedList(gating)}`;
  } else {
    verdict = 'conformant';
    const open = must.filter((r) => r.outcome === 'pass' && inconclusiveCases(r) > 0).length;
    const inconclusive = must.filter((r) => r.outcome === 'inconclusive').length;
    const skipped = must.filter((r) => r.outcome === 'skip').length;
    const waived = ids((r) => r.outcome === 'waived');
    reason = `${must.filter((r) => r.outcome === 'pass').length} of ${must.length} MUST rules passed${open ? ` (${open} with inconclusive cases)` : ''}${inconclusive ? `, ${inconclusive} inconclusive` : ''}${skipped ? `, ${skipped} skipped` : ''}${waived.length ? `, ${waived.length} failing but waived: ${listed(waived)}` : ''}${failedShould.length ? `; ${failedShould.length} SHOULD warning(s): ${listed(failedShould)}` : ''}${undecided.length ? `; decided on no case: ${undecidedList(undecided)}` : ''}`;
  }
  const breaches = input.loads.flatMap((l) =>
    l.thresholds.filter((t) => t.outcome === 'fail').map((t) => `${t.expression} (${l.profile}: ${t.reason ?? `${t.measured}${t.unit}`})`),
  );
  if (breaches.length > 0) reason += `; load threshold(s) breached or unmeasured: ${listed(breaches)}`;
  return { verdict, reason };
}

/** A rule skipped because the run did not ask its question (result/reasons.ts `not-asked`): every check of it says so. */
export function notAsked(rule: Pick<RuleResult, 'outcome' | 'checks'>): boolean {
  return rule.outcome === 'skip' && rule.checks.length > 0 && rule.checks.every((c) => c.why?.code === 'not-asked');
}

function countWords(rules: readonly RuleResult[]): string {
  const by = new Map<string, number>();
  for (const r of rules) by.set(r.outcome, (by.get(r.outcome) ?? 0) + 1);
  return [...by].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
}

/** The exit code of a run `signal` stopped: 128 and its number, as the shell reports a process it ended. */
function signalExitCode(signal: InterruptSignal): number {
  return signal === 'SIGTERM' ? EXIT.interruptedTerm : signal === 'SIGHUP' ? EXIT.interruptedHup : EXIT.interruptedInt;
}

/**
 * The exit code of a finished run: the verdict's (an inconclusive one exits 4),
 * except that a conformant run
 * whose load thresholds failed exits 3 (so CI can tell slow from wrong), and an
 * interrupted one exits 130, 143 or 129 (130 when the signal is not recorded).
 */
export function exitCode(summary: Pick<Summary, 'verdict' | 'thresholds' | 'interrupted'>): number {
  if (summary.interrupted || summary.verdict === 'interrupted') return signalExitCode(summary.interrupted ?? 'SIGINT');
  if (summary.verdict === 'conformant') return summary.thresholds === 'fail' ? EXIT.thresholdBreached : EXIT.conformant;
  if (summary.verdict === 'inconclusive') return EXIT.inconclusive;
  return summary.verdict === 'non-conformant' ? EXIT.nonConformant : EXIT.error;
}

/**
 * The verdict `verify` recomputes: the functional rules' verdict from the
 * transcript, and the rules whose load checks failed as the report recorded
 * them (the load phase is not sent again). One that fails the run makes a
 * conformant verdict non-conformant.
 */
export function verdictWithLoadFailures(
  verdict: Verdict,
  failedLoadRules: readonly Pick<RuleResult, 'severity'>[],
  strict: boolean,
): Verdict {
  const fails = failedLoadRules.some((r) => failsRun({ outcome: 'fail', severity: r.severity }, strict));
  return verdict === 'conformant' && fails ? 'non-conformant' : verdict;
}

/**
 * The exit code of `certify` once the bundle is written: 0 certified, 1 not;
 * 130, 143 or 129 when a signal interrupted the run (its bundle is never a
 * certificate). Usage and environment problems keep their own.
 */
export function certifyExitCode(certified: boolean, interrupted?: InterruptSignal): number {
  if (interrupted) return signalExitCode(interrupted);
  return certified ? EXIT.conformant : EXIT.nonConformant;
}

/** The exit code of `verify` once the bundle was read: 0 everything matches, 1 something does not. */
export function verifyExitCode(problems: number): number {
  return problems === 0 ? EXIT.conformant : EXIT.nonConformant;
}

/** The exit codes of `replay`: the case passes now, still fails, could not be sent or answered, or was answered but cannot be judged alone. */
export const REPLAY_EXIT = { passes: 0, fails: 1, error: 2, notJudged: 4 } as const;

/**
 * The settings every certification runs with; none can be changed from the
 * command line. The seed is not among them: each certification draws its own
 * from a cryptographic source (certification/certify.ts) and records it, so a
 * run is reproducible afterwards (verify replays it) but not guessable before.
 */
export const CERTIFICATION = {
  /** Runs per property-based check. */
  numRuns: 40,
  /** The load profile. */
  load: 'smoke',
  /**
   * One request at a time: the transcript then holds the requests in the one
   * order `verify` sends them again (identical requests, such as two creates
   * of the same body, are answered in recorded order).
   */
  concurrency: 1,
  /** Generated names look like ordinary animal names, without a constant marker (suites/options.ts `names`). */
  names: 'natural',
  /** Every client shape (core/fingerprints.ts): each request goes as one of them, drawn from the seed. */
  fingerprints: FINGERPRINT_IDS,
  /**
   * Pacing with jitter: a pause of 0 to this many ms before each functional
   * request, so the suite keeps no rhythm of its own. With one request at a
   * time it adds about half of it per request (measured: about 2.5 s over the
   * reference's 600-odd requests).
   */
  jitterMs: 8,
} as const;

/**
 * The certificate decision on a run: certified only when it was not
 * interrupted, ran with the certification settings, the target could be tested, every MUST rule passed
 * (a MUST rule that failed, errored, was inconclusive, skipped or waived
 * withholds it: a run whose checks could not run never reads as passed), the
 * verdict is conformant, and the load profile ran and every threshold was
 * measured and met.
 */
export function certificationDecision(result: ConformanceResult): { certified: boolean; reasons: string[] } {
  const reasons: string[] = [];
  const list = (ids: readonly string[]) => listed(ids, 8);
  // Any seed: it is drawn per certification and recorded; verify replays the recorded one. Bundles of a fixed seed stay valid.
  const settings =
    result.numRuns === CERTIFICATION.numRuns &&
    result.options.load === CERTIFICATION.load &&
    result.options.only.length === 0 &&
    result.options.skip.length === 0 &&
    !result.options.strict &&
    result.waivers.length === 0;
  // An interrupted run never finished: whatever it decided before, it certifies nothing.
  if (result.summary.interrupted) reasons.push(`interrupted by ${result.summary.interrupted}: the run did not finish`);
  if (!settings)
    reasons.push(
      `not run with the certification settings (${CERTIFICATION.numRuns} runs, load ${CERTIFICATION.load}, every rule, not strict, no waivers)`,
    );
  if (result.summary.abort) reasons.push(`the target could not be tested: ${result.summary.abort.message}`);
  const must = result.rules.filter((r) => r.severity === 'MUST');
  const withOutcome = (outcome: string) => must.filter((r) => r.outcome === outcome).map((r) => r.id);
  const words: [string, string][] = [
    ['fail', 'failed'],
    ['error', 'could not be judged (a check of the suite crashed)'],
    ['inconclusive', 'were inconclusive'],
    ['skip', 'were skipped'],
    ['waived', 'failed and were waived'],
  ];
  for (const [outcome, said] of words) {
    const ids = withOutcome(outcome);
    const undecided = outcome === 'inconclusive' ? (result.summary.undecided ?? []).filter((u) => ids.includes(u.rule)) : [];
    if (ids.length > 0)
      reasons.push(`${ids.length} MUST rule(s) ${said}: ${undecided.length === ids.length ? undecidedList(undecided) : list(ids)}`);
  }
  const unknown = must.filter((r) => !SHOWN_ORDER.includes(r.outcome)).map((r) => r.id);
  if (unknown.length > 0) reasons.push(`${unknown.length} MUST rule(s) have no known outcome: ${list(unknown)}`);
  if (must.length === 0) reasons.push('no MUST rule in the report');
  if (result.summary.verdict !== 'conformant' && reasons.length === 0)
    reasons.push(`the verdict is ${result.summary.verdict}: ${result.summary.reason}`);
  const thresholds = thresholdsOutcome(result.load);
  if (thresholds === 'fail') {
    const breached = result.load.flatMap((l) =>
      l.thresholds.filter((t) => t.outcome === 'fail').map((t) => `${t.expression} (${t.reason ?? `measured ${t.measured}${t.unit}`})`),
    );
    reasons.push(`load threshold(s) breached or not measured: ${list(breached)}`);
  } else if (thresholds === 'pass' && result.load.some((l) => l.thresholds.some((t) => t.outcome === 'inconclusive'))) {
    const open = result.load.flatMap((l) =>
      l.thresholds.filter((t) => t.outcome === 'inconclusive').map((t) => `${t.expression} (${t.reason ?? 'not measured'})`),
    );
    reasons.push(`load threshold(s) inconclusive: ${list(open)}`);
  } else if (thresholds === 'none') {
    const why = result.skippedPhases.find((p) => p.phase === 'load')?.reason;
    reasons.push(`the load profile did not run${why ? `: ${why}` : ''}`);
  }
  return { certified: reasons.length === 0, reasons };
}
