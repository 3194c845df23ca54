/**
 * When the load generator, not the target, answers for what it measured
 * (result/generator.ts), and what a profile's thresholds then read: judged
 * through `judgeThresholds`, as the load phase and `verify` judge them, on
 * figures made by hand. No server, no timer.
 */
import { describe, expect, it } from 'vitest';
import { boundWords, judgeAsGenerator, LOOP_SAMPLE_MS } from '../../../result/generator.js';
import type { LoadFigures, LoadOperation, LoadResult } from '../../../result/model.js';
import { thresholdMeasure } from '../../../result/policy.js';
import { renderSummary } from '../../../reports/console.js';
import { reportSchema } from '../../../spec/report-schema.js';
import { newAjv } from '../../../spec/validate.js';
import { parseThreshold } from '../../../suites/load/profiles.js';
import { judgeThresholds } from '../../../suites/load/run.js';
import { smokeLoad } from '../../fixtures/load-result.js';
import { resultFixture } from '../../fixtures/result.js';

/** Figures whose every operation has these latencies (ms), 1000 answers and `errorRate`. */
function figures(latencyMs: { p50: number; p99: number }, errorRate = 0): Pick<LoadResult, 'overall' | 'operations'> {
  const f: LoadFigures = {
    requests: 1000,
    throughput: 80,
    latencyMs: {
      ...latencyMs,
      p90: latencyMs.p99,
      p95: latencyMs.p99,
      p97_5: latencyMs.p99,
      p99_9: latencyMs.p99,
      max: latencyMs.p99,
      mean: latencyMs.p50,
    },
    errors: { non2xx: Math.round(errorRate * 1000), timeouts: 0, socketErrors: 0 },
    errorRate,
    distribution: [],
  };
  const operations = Object.fromEntries(['listPets', 'createPet', 'getPet'].map((op) => [op, f])) as Record<LoadOperation, LoadFigures>;
  return { overall: f, operations };
}

const parse = (...expressions: string[]) => expressions.map((e) => parseThreshold(e, 'test'));
/** The thresholds as the load phase judges them, the generator's load taken into account, and what made it bound. */
function judge(
  expressions: string[],
  f: Pick<LoadResult, 'overall' | 'operations'>,
  generator: { cpuShare: number; eventLoopDelayP99Ms: number },
  answered = { answered: 1000, due: 1000 },
) {
  const judged = judgeThresholds('busy', parse(...expressions), f, undefined, { ...answered, generatorAware: true }, generator);
  const raw = judgeThresholds('busy', parse(...expressions), f, undefined, answered);
  const { thresholds, boundBy } = judgeAsGenerator(raw, generator, f.overall.latencyMs.p99);
  // verify judges a report through judgeThresholds with its recorded generator load; the load phase, as here: the same.
  expect(thresholds).toEqual(judged);
  return Object.assign(judged, { boundBy });
}
const outcomes = (judged: { id: string; outcome: string }[]) => Object.fromEntries(judged.map((t) => [t.id, t.outcome]));
const BOUND = /^not measured: the generator was bound \(/;

describe('the generator counts as bound when its event-loop delay is high against the latencies it reports', () => {
  // The issue's figures: p50 14.7 ms / p99 193 ms reported (wrk: 2.4 / 61 ms), loop delay p99 418 ms, a third of a core.
  const issue = figures({ p50: 14.7, p99: 193 }, 0.02);
  const busyLoop = { cpuShare: 0.35, eventLoopDelayP99Ms: 418 };

  it('loop delay high against the latencies reported: the latency breaches read "not measured: the generator was bound", error rate and answered are still judged; loop delay low: every breach stands', () => {
    const judged = judge(['p99 < 100ms', 'p50 < 10ms', 'errorRate < 1%', 'throughput > 100/s'], issue, busyLoop);
    expect(outcomes(judged)).toEqual({
      'LOAD-BUSY-ALL-P99': 'inconclusive',
      'LOAD-BUSY-ALL-P50': 'inconclusive',
      'LOAD-BUSY-ALL-ERRORRATE': 'fail',
      'LOAD-BUSY-ALL-THROUGHPUT': 'inconclusive',
      'LOAD-BUSY-ALL-ANSWERED': 'pass',
    });
    const p99 = judged.find((t) => t.metric === 'p99')!;
    expect(p99.reason).toMatch(BOUND);
    expect(p99.reason).toBe(
      `not measured: the generator was bound (its event loop ran ${418 - LOOP_SAMPLE_MS} ms late at p99, against 193 ms measured): the target's own p99 is anywhere from 0 to 193 ms`,
    );
    expect(thresholdMeasure(p99)).toMatch(BOUND);
    expect(judged.boundBy).toEqual(['eventLoopDelay']);

    // The same latencies with an idle generator (a slow target): the breaches are the target's.
    const idle = judge(['p99 < 100ms', 'p50 < 10ms', 'errorRate < 1%', 'throughput > 100/s'], issue, {
      cpuShare: 0.35,
      eventLoopDelayP99Ms: 11.5,
    });
    expect(outcomes(idle)).toEqual({
      'LOAD-BUSY-ALL-P99': 'fail',
      'LOAD-BUSY-ALL-P50': 'fail',
      'LOAD-BUSY-ALL-ERRORRATE': 'fail',
      'LOAD-BUSY-ALL-THROUGHPUT': 'fail',
      'LOAD-BUSY-ALL-ANSWERED': 'pass',
    });
    expect(idle.boundBy).toEqual([]);
    // An idle loop reads its sampling interval: 10 ms of recorded delay is no lateness, even against 1 ms latencies.
    const interval = judge(['p99 < 0.5ms'], figures({ p50: 0.4, p99: 1 }), { cpuShare: 0.2, eventLoopDelayP99Ms: LOOP_SAMPLE_MS });
    expect(outcomes(interval)['LOAD-BUSY-ALL-P99']).toBe('fail');
  });

  it('a breach within what the loop delay could add is not measured; one beyond it stands', () => {
    // 12 ms late at p99: a p99 of 105 ms could be 93 ms of the target's, under the limit; one of 150 ms is at least 138 ms.
    const late = { cpuShare: 0.3, eventLoopDelayP99Ms: 22 };
    const near = judge(['p99 < 100ms'], figures({ p50: 20, p99: 105 }), late);
    expect(near[0]).toMatchObject({ outcome: 'inconclusive', reason: expect.stringMatching(BOUND) });
    expect(near[0]!.reason).toBe(
      "not measured: the generator was bound (its event loop ran 12 ms late at p99): the target's own p99 is anywhere from 93 to 105 ms, on both sides of the limit",
    );
    expect(near.boundBy).toEqual(['eventLoopDelay']);
    expect(judge(['p99 < 100ms'], figures({ p50: 20, p99: 150 }), late)[0]!.outcome).toBe('fail');
  });

  it('CPU share high: a latency breach is not measured whatever the loop shows, and a latency met stays met (the generator only adds delay)', () => {
    const cpu = { cpuShare: 0.92, eventLoopDelayP99Ms: 10.5 };
    const judged = judge(['p99 < 100ms', 'p99 < 500ms', 'errorRate < 1%'], issue, cpu);
    expect(judged.map((t) => [t.expression, t.outcome])).toEqual([
      ['p99 < 100ms', 'inconclusive'],
      ['p99 < 500ms', 'pass'],
      ['errorRate < 1%', 'fail'],
      ['answered >= 90%', 'pass'],
    ]);
    expect(judged[0]!.reason).toContain('it used 92% of a core');
    expect(judged.boundBy).toEqual(['cpu']);
  });

  it('a latency floor (p50 > 20ms) met only by what the generator could add is not measured; one missed stays missed', () => {
    const judged = judge(['p50 > 20ms', 'p99 > 500ms'], issue, busyLoop);
    expect(judged.map((t) => t.outcome)).toEqual(['fail', 'fail', 'pass']);
    const met = judge(['p50 > 10ms'], issue, busyLoop);
    expect(met[0]!.outcome).toBe('inconclusive');
  });

  it('a share answered under 90% while the generator was CPU-bound is not measured; with its CPU idle it fails (its loop late against a fast p99 is no reason), and a report of an earlier version (no generatorAware) keeps its failure', () => {
    // A fixed-rate profile that dropped 300 of 1000 due requests: every connection was waiting when they came due.
    const dropped = { answered: 700, due: 1000 };
    const bound = judge(['p99 < 500ms'], issue, { cpuShare: 0.95, eventLoopDelayP99Ms: 11 }, dropped);
    expect(outcomes(bound)).toEqual({ 'LOAD-BUSY-ALL-P99': 'pass', 'LOAD-BUSY-ALL-ANSWERED': 'inconclusive' });
    expect(bound[1]!.reason).toBe(
      "not measured: the generator was bound (it used 95% of a core): the requests it counted unanswered may have waited on it, not on the target: the target's own share is anywhere from 70% to 100%",
    );
    expect(bound.boundBy).toEqual(['cpu']);
    // Its loop late against the p99 alone says nothing of drops: a fast target's p99 (1.5 ms) against an idle loop's
    // lateness (1.2 ms) is no reason a broken target's half answered reads anything but failed.
    expect(outcomes(judge([], issue, busyLoop, dropped))).toEqual({ 'LOAD-BUSY-ALL-ANSWERED': 'fail' });
    expect(
      outcomes(judge([], figures({ p50: 0.8, p99: 1.5 }), { cpuShare: 0.2, eventLoopDelayP99Ms: 11.2 }, { answered: 500, due: 1000 })),
    ).toEqual({
      'LOAD-BUSY-ALL-ANSWERED': 'fail',
    });
    // The generator idle: the drops are the target's (it kept every connection busy).
    const idle = judge([], issue, { cpuShare: 0.3, eventLoopDelayP99Ms: 11 }, dropped);
    expect(idle[0]).toMatchObject({ outcome: 'fail', measured: 70, reason: 'only 700 of 1000 requests answered' });
    // Bound, but 95% answered: a pass stands.
    expect(outcomes(judge([], issue, { cpuShare: 0.95, eventLoopDelayP99Ms: 11 }, { answered: 950, due: 1000 }))).toEqual({
      'LOAD-BUSY-ALL-ANSWERED': 'pass',
    });
    // verify, a report of an earlier version: the share judged as that version judged it.
    const recorded = { cpuShare: 0.95, eventLoopDelayP99Ms: 11, bound: true };
    expect(judgeThresholds('busy', [], issue, undefined, dropped, recorded)[0]!.outcome).toBe('fail');
    expect(judgeThresholds('busy', [], issue, undefined, { ...dropped, generatorAware: true }, recorded)[0]!.outcome).toBe('inconclusive');
  });

  it('verify judges a report with its recorded generator load; one of an earlier version (no boundBy), on the figures alone', () => {
    const expressions = parse('p99 < 100ms');
    const recorded = { cpuShare: 0.35, eventLoopDelayP99Ms: 418, bound: false };
    expect(judgeThresholds('busy', expressions, issue, undefined, { answered: 1000, due: 1000 }, recorded)[0]!.outcome).toBe(
      'inconclusive',
    );
    expect(judgeThresholds('busy', expressions, issue, undefined, { answered: 1000, due: 1000 })[0]!.outcome).toBe('fail');
  });
});

describe('a bound generator in the load section', () => {
  it('says which signal made it bound, and a not-measured threshold says why', () => {
    const load = smokeLoad({
      generatorLoad: { cpuShare: 0.35, eventLoopDelayP99Ms: 418, bound: true, boundBy: ['eventLoopDelay'] },
    });
    const [p99] = judgeAsGenerator(
      [{ ...load.thresholds[0]!, expression: 'p99 < 5ms', limit: 5, outcome: 'fail' }],
      load.generatorLoad,
      load.overall.latencyMs.p99,
    ).thresholds;
    expect(boundWords(load)).toBe(
      'generator-bound by its event loop (408 ms late at p99, where the p99 it measured was 6.25 ms): the load generator, not the target, was the limit; a time threshold it could have breached by itself reads "not measured", never as the target\'s breach',
    );
    const text = renderSummary({ ...resultFixture(), load: [{ ...load, thresholds: [p99!] }] }, [], false);
    expect(text).toMatch(/\? LOAD-SMOKE-ALL-P99: p99 < 5ms, not measured: the generator was bound \(its event loop ran 408 ms late/);
    expect(text).toMatch(/generator: 35% of a core, event-loop delay p99 418 ms — generator-bound by its event loop/);
    // A report of an earlier version (no boundBy) was bound by its CPU share alone.
    expect(boundWords(smokeLoad({ generatorLoad: { cpuShare: 0.9, eventLoopDelayP99Ms: 12, bound: true } }))).toBe(
      'generator-bound by its CPU (90% of a core): the load generator, not the target, was the limit',
    );
  });
});

describe('report.json records what made the generator bound', () => {
  it('the published schema takes boundBy, takes a report of an earlier version without it, and no other signal', () => {
    const ajv = newAjv();
    ajv.addSchema(reportSchema);
    const valid = ajv.compile({ $ref: `${reportSchema.$id}#/$defs/load` });
    const withLoad = (generatorLoad: object) => smokeLoad({ generatorLoad } as Partial<LoadResult>);
    expect(valid(withLoad({ cpuShare: 0.35, eventLoopDelayP99Ms: 418, bound: true, boundBy: ['eventLoopDelay'] }))).toBe(true);
    expect(valid(withLoad({ cpuShare: 0.35, eventLoopDelayP99Ms: 12, bound: false, boundBy: [] }))).toBe(true);
    expect(valid(withLoad({ cpuShare: 0.9, eventLoopDelayP99Ms: 12, bound: true }))).toBe(true);
    expect(valid(withLoad({ cpuShare: 0.9, eventLoopDelayP99Ms: 12, bound: true, boundBy: ['memory'] }))).toBe(false);
    expect(valid(withLoad({ cpuShare: 0.9, eventLoopDelayP99Ms: 12, bound: true, boundBy: ['cpu', 'cpu'] }))).toBe(false);
  });
});
