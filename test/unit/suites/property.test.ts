import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RuleId } from '../../../spec/rules.js';
import type { Asserter, CheckDefinition, Observer, SentExchange } from '../../../suites/check.js';
import { type PropertyRun, runProperty } from '../../../suites/property.js';
import type { PendingFinding, RawCounterexample } from '../../../suites/recorder.js';

/** A sink that keeps what the runner reports: passes, recorded findings with their counterexamples, counted failures. */
function sink() {
  const passes: RuleId[] = [];
  const recorded: { finding: PendingFinding; counterexample: RawCounterexample }[] = [];
  const counted: RuleId[] = [];
  const asserter: Asserter = { pass: (rule) => passes.push(rule), fail: () => undefined, inconclusive: () => undefined };
  const observer: Observer = { observe: () => undefined };
  return {
    passes,
    recorded,
    counted,
    sink: {
      check: { id: 'unit.property', rules: ['CREATE-ECHO', 'LIST-PAGE-FULL'] } as unknown as CheckDefinition,
      operation: 'createPet' as const,
      asserter,
      observer,
      record: (finding: PendingFinding, counterexample: RawCounterexample) => recorded.push({ finding, counterexample }),
      noteFailure: (rule: RuleId) => counted.push(rule),
      recording: <R>(_into: SentExchange[], during: () => Promise<R>) => during(),
    },
  };
}

/** A sink that knows when the counterexample's last replay has begun (`replaying()` true from then on). */
function sinkThatReplays() {
  const s = sink();
  let replaying = false;
  s.sink.recording = (_into, during) => {
    replaying = true;
    return during();
  };
  return { ...s, replaying: () => replaying };
}

const base = { arbitrary: fc.integer({ min: 0, max: 1000 }), seed: 42, numRuns: 50, timeLimitMs: 10_000, concurrency: 4 } satisfies Omit<
  PropertyRun<number>,
  'body'
>;
const failOver =
  (rule: RuleId, bound: number, when: () => boolean = () => true): PropertyRun<number>['body'] =>
  async (value, assert) => {
    await Promise.resolve();
    if (value > bound && when()) assert.fail(rule, { code: 'CUT_SHORT', args: { reason: `value ${value}` } }, []);
    else assert.pass(rule);
  };

describe('the property runner, without a target', () => {
  it('passes every case of a property that holds, in sample order, and records nothing', async () => {
    const s = sink();
    await runProperty({ ...base, body: failOver('CREATE-ECHO', 1000) }, s.sink);
    expect(s.passes).toHaveLength(50);
    expect(s.recorded).toEqual([]);
  });

  it('shrinks the first failing case to the smallest input that still fails, and counts the failure once', async () => {
    const s = sink();
    await runProperty({ ...base, body: failOver('CREATE-ECHO', 500) }, s.sink);
    expect(s.recorded).toHaveLength(1);
    const [{ finding, counterexample }] = s.recorded as [(typeof s.recorded)[0]];
    expect(finding).toMatchObject({ rule: 'CREATE-ECHO', outcome: 'fail' });
    expect(finding.message.repeat).toBeUndefined();
    // The input goes to the recorder as an excerpt of the shown value (rendered when it is redacted).
    expect(counterexample.input).toMatch(/\D501\D/);
    expect(counterexample.numShrinks).toBeGreaterThan(0);
    expect(counterexample.seed).toBe(42);
    expect(s.counted).toEqual(['CREATE-ECHO']);
  });

  it('a failure that does not reproduce stays a failure, labelled intermittent, when it rests on the exchange alone', async () => {
    // Fails in the sampled run and while shrinking; never when the counterexample is replayed last.
    const s = sinkThatReplays();
    await runProperty({ ...base, body: failOver('CREATE-ECHO', 500, () => !s.replaying()) }, s.sink);
    expect(s.recorded.map((r) => [r.finding.rule, r.finding.outcome, r.finding.message.repeat])).toEqual([
      ['CREATE-ECHO', 'fail', 'intermittent'],
    ]);
    expect(s.counted).toEqual(['CREATE-ECHO']);
  });

  it('a failure that does not reproduce turns inconclusive when its judgement rested on what was inferred about the store', async () => {
    const s = sinkThatReplays();
    await runProperty({ ...base, body: failOver('LIST-PAGE-FULL', 500, () => !s.replaying()) }, s.sink);
    expect(s.recorded.map((r) => [r.finding.rule, r.finding.outcome, r.finding.message.repeat])).toEqual([
      ['LIST-PAGE-FULL', 'inconclusive', 'not-reproduced'],
    ]);
    expect(s.counted).toEqual([]);
  });

  it('runs the examples first, within the run count', async () => {
    const s = sink();
    const seen: number[] = [];
    await runProperty(
      {
        ...base,
        numRuns: 3,
        concurrency: 1,
        examples: [7, 8, 9, 10],
        body: async (value, assert) => void (seen.push(value), assert.pass('CREATE-ECHO')),
      },
      s.sink,
    );
    expect(seen).toEqual([7, 8, 9]);
  });
});
