/**
 * The property runner: a fast-check property whose body sends requests and
 * records assertions. The cases are sampled from the check's seed and run
 * concurrently (a target tens of milliseconds away would otherwise wait one
 * round trip per case); the first failing case, in sample order, is then
 * replayed by fast-check from its path and shrunk one case at a time, and the
 * shrunk counterexample is replayed once more before it is reported.
 */
import fc from 'fast-check';
import { show } from '../core/json.js';
import { type FindingMessage, findingText } from '../spec/findings.js';
import type { RuleId } from '../spec/rules.js';
import type { Asserter, CheckDefinition, Observer, SentExchange } from './check.js';
import type { Judgement, OperationId } from '../result/model.js';
import type { PendingFinding, RawCounterexample } from './recorder.js';
import { inCase, mapBounded } from './schedule.js';
import { IdleClosed } from './session.js';

/**
 * Rules whose judgement rests on what the suite inferred about the store (how
 * many matching animals it holds), not on the exchange alone: a failure of
 * theirs that does not reproduce is inconclusive. Every other failure that was
 * observed stays a failure, even when it does not reproduce.
 */
export const STORE_INFERRED_RULES: readonly RuleId[] = ['LIST-PAGE-FULL', 'LIST-STATUS-COMPLETE'];

export interface PropertyRun<T> {
  arbitrary: fc.Arbitrary<T>;
  body: (value: T, assert: Asserter & Observer) => Promise<void>;
  /** Run before the sampled cases. */
  examples?: readonly T[];
  seed: number;
  numRuns: number;
  /** No case starts after this long, ms. */
  timeLimitMs: number;
  /** Cases in flight at most. */
  concurrency: number;
}

/** Where the runner's findings go. */
export interface PropertySink {
  check: CheckDefinition;
  operation: OperationId;
  /** Records passes (of cases that did not fail), as they are flushed in sample order. */
  asserter: Asserter;
  observer: Observer;
  record(finding: PendingFinding, counterexample: RawCounterexample): void;
  /** A failure that counts (for --max-failures). */
  noteFailure(rule: RuleId): void;
  /** Keeps the exchanges sent while `during` runs: the replay's evidence. */
  recording<R>(into: SentExchange[], during: () => Promise<R>): Promise<R>;
}

interface Failing {
  value: unknown;
  findings: PendingFinding[];
}

export async function runProperty<T>(run: PropertyRun<T>, sink: PropertySink): Promise<void> {
  // As fast-check counts them: the examples first, within numRuns, then generated values.
  const examples = (run.examples ?? []).slice(0, run.numRuns);
  const values: T[] = [
    ...examples,
    ...(run.numRuns > examples.length ? fc.sample(run.arbitrary, { seed: run.seed, numRuns: run.numRuns - examples.length }) : []),
  ];
  const deadline = performance.now() + run.timeLimitMs;
  const cases = await mapBounded(values, run.concurrency, async (value, index) => {
    if (performance.now() > deadline) return undefined;
    const collected = new Collector(sink.observer);
    try {
      await inCase(index, () => run.body(value, collected));
    } catch (error) {
      // A case whose precondition fails (fc.pre) does not count; anything else is the check's own crash.
      if (fc.PreconditionFailure.isFailure(error)) return undefined;
      // A create that died on a reused connection may or may not have been carried out: that case alone is
      // undecided, the other cases still decide the check's rules.
      if (error instanceof IdleClosed) {
        for (const rule of sink.check.rules)
          sink.asserter.inconclusive(rule, { code: 'CUT_SHORT', args: { reason: error.message } }, [error.exchange]);
        return undefined;
      }
      throw error;
    }
    return collected;
  });
  // Passes in sample order: the report does not depend on which case answered first.
  let firstFailing = -1;
  for (const [i, collected] of cases.entries()) {
    if (!collected) continue;
    if (collected.findings.some((f) => f.outcome === 'fail')) {
      if (firstFailing < 0) firstFailing = i;
    } else {
      collected.flush(sink.asserter);
    }
  }
  if (firstFailing < 0) return;
  const sampled: Failing = { value: values[firstFailing], findings: cases[firstFailing]!.findings };
  const { failing, counterexample } = await shrink(run, sampled, firstFailing, sink);
  await report(run, sink, failing, counterexample);
  // What the other failing cases show that the shrunk one does not: each such rule once, with its case.
  const shown = new Set(failing.findings.map((f) => f.rule));
  for (const [i, collected] of cases.entries()) {
    if (!collected) continue;
    for (const finding of collected.findings) {
      if (finding.outcome !== 'fail' || shown.has(finding.rule)) continue;
      shown.add(finding.rule);
      sink.record(finding, { ...counterexample, input: show(values[i], 4000), path: String(i), numRuns: i + 1, numShrinks: 0 });
      sink.noteFailure(finding.rule);
    }
  }
}

/**
 * Replays the failing case by its path and lets fast-check shrink it, one case
 * at a time. A case that no longer fails when replayed is reported as sampled.
 */
async function shrink<T>(
  run: PropertyRun<T>,
  sampled: Failing,
  index: number,
  sink: PropertySink,
): Promise<{ failing: Failing; counterexample: RawCounterexample }> {
  let failing: Failing | undefined;
  let crash: unknown;
  const property = fc.asyncProperty(run.arbitrary, async (value) => {
    if (crash !== undefined) return true;
    const collected = new Collector(sink.observer);
    try {
      await inCase(index, () => run.body(value, collected));
    } catch (error) {
      if (fc.PreconditionFailure.isFailure(error)) throw error;
      crash = error;
      return true;
    }
    if (!collected.findings.some((f) => f.outcome === 'fail')) return true;
    failing = { value, findings: collected.findings };
    return false;
  });
  const details = await fc.check(property, {
    seed: run.seed,
    path: String(index),
    ...(run.examples?.length ? { examples: run.examples.map((e) => [e] as [T]) } : {}),
    interruptAfterTimeLimit: run.timeLimitMs,
    markInterruptAsFailure: false,
  });
  if (crash !== undefined) throw crash;
  const found = details.failed && failing ? failing : sampled;
  const path = details.failed && details.counterexamplePath ? details.counterexamplePath : String(index);
  return {
    failing: found,
    counterexample: {
      input: show(found.value, 4000),
      seed: run.seed,
      path,
      numRuns: index + 1,
      numShrinks: details.failed ? details.numShrinks : 0,
    },
  };
}

/**
 * Replays the counterexample before reporting it. A failure that does not
 * reproduce was still observed: when its judgement rests on the exchange alone
 * it stays a failure, labelled intermittent; only a judgement that rests on
 * what the suite inferred about the store may turn inconclusive.
 */
async function report<T>(run: PropertyRun<T>, sink: PropertySink, failing: Failing, counterexample: RawCounterexample): Promise<void> {
  const replay = new Collector(sink.observer);
  await sink.recording(replay.exchanges, () => run.body(failing.value as T, replay));
  const reproduced = new Set(replay.findings.filter((f) => f.outcome === 'fail').map((f) => f.rule));
  for (const finding of failing.findings) {
    const inferred = STORE_INFERRED_RULES.includes(finding.rule);
    if (finding.outcome === 'fail' && (reproduced.has(finding.rule) || !inferred)) sink.noteFailure(finding.rule);
    if (finding.outcome !== 'fail' || reproduced.has(finding.rule)) {
      sink.record(finding, counterexample);
      continue;
    }
    const again = replay.exchanges.filter((x) => !finding.exchanges.includes(x));
    const exchanges = [...finding.exchanges, ...again];
    sink.record(
      inferred
        ? {
            ...finding,
            outcome: 'inconclusive',
            message: { ...finding.message, repeat: 'not-reproduced' },
            exchanges,
            key: `not reproduced ${finding.key}`,
          }
        : { ...finding, message: { ...finding.message, repeat: 'intermittent' }, exchanges, key: `intermittent ${finding.key}` },
      counterexample,
    );
  }
}

/** Collects one case's assertions until it is known whether the case failed; observations go straight through. */
class Collector implements Asserter, Observer {
  readonly findings: PendingFinding[] = [];
  readonly observe: Observer['observe'];
  /** Exchanges sent during a replay. */
  readonly exchanges: SentExchange[] = [];
  readonly #passes: RuleId[] = [];

  constructor(observer: Observer) {
    this.observe = observer.observe;
  }

  pass(rule: RuleId): void {
    this.#passes.push(rule);
  }

  fail(rule: RuleId, message: FindingMessage<string>, exchanges: readonly SentExchange[], key?: string, judge?: Judgement): void {
    this.findings.push({ rule, outcome: 'fail', message, exchanges, key: key ?? findingText(message), ...(judge ? { judge } : {}) });
  }

  inconclusive(rule: RuleId, message: FindingMessage<string>, exchanges: readonly SentExchange[] = []): void {
    this.findings.push({ rule, outcome: 'inconclusive', message, exchanges, key: findingText(message) });
  }

  flush(into: Asserter): void {
    for (const rule of this.#passes) into.pass(rule);
    for (const f of this.findings) into.inconclusive(f.rule, f.message, f.exchanges);
  }
}
