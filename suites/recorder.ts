/**
 * Collects assertions and observations into per-rule results. Evidence is built
 * here, through the run's {@link EvidenceFactory}, so it is redacted once.
 */
import { type FindingMessage, findingText, redactFinding } from '../spec/findings.js';
import { gaps as gapCatalog, type GapId } from '../spec/gaps.js';
import { type RuleId, rules as catalog } from '../spec/rules.js';
import type { Asserter, CheckDefinition, Observer, SentExchange } from './check.js';
import type { EvidenceFactory } from './evidence.js';
import type { Redacted } from '../core/redact.js';
import type {
  CheckResult,
  Counterexample,
  Finding,
  Judgement,
  Observation,
  OperationId,
  Outcome,
  ReplayCase,
  RuleResult,
} from '../result/model.js';
import { sha256 } from '../core/hash.js';
import { type SkipReason, skipText } from '../result/reasons.js';

/** A counterexample as the engine hands it over: its input not redacted yet. */
export type RawCounterexample = Omit<Counterexample, 'input'> & { input: string };

/** Findings kept per rule and check; the rest are only counted. */
export const MAX_FINDINGS_PER_CHECK = 5;
/** Distinct observations kept per gap. */
export const MAX_OBSERVATIONS_PER_GAP = 12;

interface Tally {
  passed: number;
  failed: number;
  inconclusive: number;
  findings: Finding[];
  keys: Set<string>;
  error?: SkipReason;
  skipped?: SkipReason;
}

/** A failure or inconclusive assertion not yet recorded (properties hold them until shrinking ends). */
export interface PendingFinding {
  rule: RuleId;
  outcome: 'fail' | 'inconclusive';
  /** Its arguments not redacted yet: the recorder redacts them once. */
  message: FindingMessage<string>;
  exchanges: readonly SentExchange[];
  key: string;
  judge?: Judgement;
}

export class Recorder {
  /** By check, then rule: two lookups of constant strings, not a key built for every assertion. */
  readonly #tallies = new Map<string, Map<RuleId, Tally>>();
  readonly #observations = new Map<string, Observation>();
  readonly #perGap = new Map<GapId, number>();
  readonly #selected: (rule: RuleId) => boolean;
  readonly #evidence: EvidenceFactory;
  readonly #nothingJudged: (rule: RuleId, check: CheckDefinition) => SkipReason;
  readonly #checks: readonly CheckDefinition[];
  readonly #target: string;

  /** `nothingJudged`: why a check that ran recorded nothing for a rule, in terms of what its requests (or the run's) were answered. */
  constructor(options: {
    checks: readonly CheckDefinition[];
    selected: (rule: RuleId) => boolean;
    evidence: EvidenceFactory;
    target: string;
    nothingJudged: (rule: RuleId, check: CheckDefinition) => SkipReason;
  }) {
    this.#checks = options.checks;
    this.#target = options.target;
    this.#selected = options.selected;
    this.#evidence = options.evidence;
    this.#nothingJudged = options.nothingJudged;
  }

  #tally(rule: RuleId, check: string): Tally {
    let byRule = this.#tallies.get(check);
    if (!byRule) this.#tallies.set(check, (byRule = new Map()));
    let tally = byRule.get(rule);
    if (!tally) {
      tally = { passed: 0, failed: 0, inconclusive: 0, findings: [], keys: new Set() };
      byRule.set(rule, tally);
    }
    return tally;
  }

  #guard(check: CheckDefinition, rule: RuleId): boolean {
    if (!check.rules.includes(rule)) throw new Error(`check ${check.id} asserted ${rule}, which it does not declare`);
    return this.#selected(rule);
  }

  /** Records a finding for `check`, with an optional counterexample. */
  record(check: CheckDefinition, operation: OperationId, pending: PendingFinding, counterexample?: RawCounterexample): void {
    if (!this.#guard(check, pending.rule)) return;
    const tally = this.#tally(pending.rule, check.id);
    if (pending.outcome === 'fail') tally.failed++;
    else tally.inconclusive++;
    if (tally.keys.has(pending.key) || tally.findings.length >= MAX_FINDINGS_PER_CHECK) return;
    tally.keys.add(pending.key);
    const message = redactFinding(pending.message, (text) => this.#evidence.redact(text));
    tally.findings.push({
      rule: pending.rule,
      check: check.id,
      // The operation of the request that failed, where there is one (auth checks span every operation).
      operation: pending.exchanges.at(-1)?.meta.operation ?? operation,
      outcome: pending.outcome,
      ...message,
      message: findingText(message),
      evidence: pending.exchanges.map((x) => this.#evidence.of(x)),
      ...(counterexample ? { counterexample: { ...counterexample, input: this.#evidence.redact(counterexample.input) } } : {}),
      key: this.#evidence.redact(pending.key),
      rerun: { only: this.#rerunRules(pending) },
      ...(pending.outcome === 'fail' ? this.#case(check, pending) : {}),
    });
  }

  /**
   * The rules a re-run must select to reproduce a finding: its own, and those
   * of the checks that sent its requests (a response check judges requests
   * other checks send).
   */
  #rerunRules(pending: PendingFinding): RuleId[] {
    const senders = new Set(pending.exchanges.map((x) => x.meta.check));
    const rules = [pending.rule, ...this.#checks.filter((c) => senders.has(c.id)).flatMap((c) => c.rules)];
    return [...new Set(rules)];
  }

  /** The replay case of a failure: its last request, exactly, and how to judge the answer alone. */
  #case(check: CheckDefinition, pending: PendingFinding): { case?: ReplayCase } {
    const x = pending.exchanges.at(-1);
    if (!x || !x.request.url.startsWith(this.#target)) return {};
    const judge: Judgement =
      check.kind === 'response'
        ? { kind: 'response', check: check.id }
        : check.kind === 'load' && check.inspect
          ? { kind: 'response', check: check.id.replace(/^load\.[^.]+\./, '') }
          : (pending.judge ?? { kind: 'none', why: 'judging this answer needed what the run knew of the store' });
    const headers = this.#evidence.headers(x.request.headers);
    const id = `c-${sha256(`${pending.rule}|${check.id}|${pending.key}|${x.seq}`).slice(0, 8)}`;
    return {
      case: {
        id,
        request: {
          method: x.request.method,
          path: this.#evidence.redact(x.request.url.slice(this.#target.length)),
          headers,
          ...(x.request.body ? { body: this.#evidence.redactBody(x.request.body) } : {}),
        },
        auth: x.meta.auth,
        judge,
      },
    };
  }

  /** An {@link Asserter} that records straight into this recorder. */
  asserter(check: CheckDefinition, operation: OperationId): Asserter {
    return {
      pass: (rule) => {
        if (this.#guard(check, rule)) this.#tally(rule, check.id).passed++;
      },
      fail: (rule, message, exchanges, key, judge) =>
        this.record(check, operation, {
          rule,
          outcome: 'fail',
          message,
          exchanges,
          key: key ?? findingText(message),
          ...(judge ? { judge } : {}),
        }),
      inconclusive: (rule, message, exchanges = []) =>
        this.record(check, operation, { rule, outcome: 'inconclusive', message, exchanges, key: findingText(message) }),
    };
  }

  observer(check: CheckDefinition): Observer {
    return {
      observe: (gap, operation, summary, exchange) => {
        if (!check.gaps.includes(gap)) throw new Error(`check ${check.id} observed ${gap}, which it does not declare`);
        this.observe(gap, operation, summary, exchange);
      },
    };
  }

  observe(gap: GapId, operation: OperationId, summary: string, exchange?: SentExchange): void {
    const text = this.#evidence.redact(summary);
    const key = `${gap}\u0000${operation}\u0000${text}`;
    const existing = this.#observations.get(key);
    if (existing) {
      existing.count++;
      return;
    }
    const count = this.#perGap.get(gap) ?? 0;
    if (count >= MAX_OBSERVATIONS_PER_GAP) return;
    this.#perGap.set(gap, count + 1);
    this.#observations.set(key, {
      gap,
      operation,
      summary: text,
      count: 1,
      ...(exchange ? { evidence: this.#evidence.of(exchange) } : {}),
    });
  }

  /** Marks a check as crashed: its rules cannot be decided by it. */
  checkError(check: CheckDefinition, detail: string): void {
    for (const rule of check.rules) this.#tally(rule, check.id).error = { code: 'crashed', detail };
  }

  /** Marks a check as not run (or cut short), with why. */
  checkSkipped(check: CheckDefinition, why: SkipReason): void {
    for (const rule of check.rules) this.#tally(rule, check.id).skipped = why;
  }

  /** Per-rule results in catalog order, and observations in gap-catalog order. */
  results(): { rules: RuleResult[]; observations: Observation[] } {
    const ruleResults = catalog.map((rule): RuleResult => {
      const checks = this.#checks.filter((c) => (c.rules as readonly string[]).includes(rule.id));
      const checkResults = checks.map((check) => this.#checkResult(rule.id, check));
      return {
        id: rule.id,
        title: rule.title,
        severity: rule.severity,
        group: rule.group,
        section: rule.section,
        outcome: this.#selected(rule.id) ? combine(checkResults.map((c) => c.outcome)) : 'skip',
        checks: checkResults,
      };
    });
    const order = new Map<string, number>(gapCatalog.map((g, i) => [g.id, i]));
    const observations = [...this.#observations.values()].sort((a, b) => (order.get(a.gap) ?? 0) - (order.get(b.gap) ?? 0));
    return { rules: ruleResults, observations };
  }

  /** The rules `checks` declare (selected ones), each with its outcome over those checks alone, so far. */
  outcomesOf(checks: readonly CheckDefinition[]): Map<RuleId, Outcome> {
    const outcomes = new Map<RuleId, Outcome>();
    for (const rule of new Set(checks.flatMap((c) => c.rules as readonly RuleId[]))) {
      if (!this.#selected(rule)) continue;
      const judged = checks.filter((c) => (c.rules as readonly RuleId[]).includes(rule)).map((c) => this.#checkResult(rule, c).outcome);
      outcomes.set(rule, combine(judged));
    }
    return outcomes;
  }

  #checkResult(rule: RuleId, check: CheckDefinition): CheckResult {
    const tally = this.#tallies.get(check.id)?.get(rule);
    const base = { id: check.id, kind: check.kind, title: check.title };
    const none = { passed: 0, failed: 0, inconclusive: 0, findings: [] };
    if (!this.#selected(rule)) return { ...base, outcome: 'skip', ...none, ...this.#why({ code: 'not-selected' }) };
    if (!tally) return { ...base, outcome: 'inconclusive', ...none, ...this.#why(this.#nothingJudged(rule, check)) };
    if (tally.skipped && tally.passed + tally.failed + tally.inconclusive === 0 && !tally.error)
      return { ...base, outcome: 'skip', ...none, ...this.#why(tally.skipped) };
    const { passed, failed, inconclusive, findings } = tally;
    let outcome: Outcome;
    let why: SkipReason | undefined;
    if (failed > 0) outcome = 'fail';
    else if (tally.error) [outcome, why] = ['error', tally.error];
    else if (passed > 0) outcome = 'pass';
    else if (tally.skipped) [outcome, why] = ['skip', tally.skipped];
    else if (inconclusive > 0) outcome = 'inconclusive';
    else [outcome, why] = ['inconclusive', this.#nothingJudged(rule, check)];
    if (!why && tally.skipped && outcome !== 'fail') why = tally.skipped;
    return { ...base, outcome, passed, failed, inconclusive, findings, ...(why ? this.#why(why) : {}) };
  }

  /** A reason as the result carries it: the data, and its wording redacted. */
  #why(why: SkipReason): { why: SkipReason; reason: Redacted } {
    return { why, reason: this.#evidence.redact(skipText(why)) };
  }
}

/** A rule's outcome from its checks': fail, then error, then pass, then inconclusive, then skip. */
export function combine(outcomes: readonly Outcome[]): Outcome {
  for (const o of ['fail', 'error', 'pass', 'inconclusive'] as const) if (outcomes.includes(o)) return o;
  return 'skip';
}
