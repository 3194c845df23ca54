/**
 * When the load generator, not the target, answers for a figure it reports
 * (result/load.ts `generatorLoad`), and which thresholds it then could not
 * judge. The suite's sender stamps a request when it writes it (a fixed-rate
 * one when it was due) and its answer when the answer's callback runs: every
 * moment its event loop is busy elsewhere (its own work, or the machine not
 * scheduling it) is added to the latency it reports, never taken from it. So
 * the target's own figure lies in a range ending at the reported one; a
 * threshold is judged only when its verdict is the same over the whole range,
 * and otherwise reads "not measured: the generator was bound" (inconclusive),
 * never a breach blamed on the target. A pass of `p99 < 500ms` therefore
 * always stands; a breach stands only when the target breached it whatever the
 * generator added.
 */
import type { BoundSignal, LoadResult, ThresholdResult } from './load.js';
import { NOT_MEASURED, thresholdMeasured } from './thresholds.js';

/**
 * At this share of one core or more the generator is bound by its CPU: its
 * loop had next to no idle time, so answers wait for it in socket buffers
 * between polls, where no loop sample sees them; the target's own latency is
 * then anywhere up to the figure.
 */
export const GENERATOR_BOUND_CPU = 0.85;

/**
 * The loop's sampling interval, ms (run.ts samples at it). Node's histogram
 * records the whole interval between its timer's runs, so an idle loop reads
 * this much (measured on Node 20: min 10.1 ms, p99 10–16 ms on a busy
 * machine); the lateness is what lies beyond it.
 */
export const LOOP_SAMPLE_MS = 10;

/**
 * The generator is bound by its event-loop delay against a latency figure
 * when its loop's lateness at p99 is at least this share of the figure. The
 * lateness bounds what it added to most answers only roughly: a stall yields
 * one sample however long it lasts (nodejs/node#34661), while every answer
 * that arrives during it waits, so the lateness undercounts the time spent
 * stalled. Once it is half the figure, the figure may be the generator's as a
 * whole, and the target's own is taken to be anywhere from 0 up to it. Below
 * that, the lateness is taken as what the generator added at most: the
 * target's own figure is at least the figure less the lateness. (The issue's
 * case: p50 14.7 ms, p99 193 ms reported, 418 ms of loop delay; wrk measured
 * 2.4 / 61 ms.)
 */
export const LOOP_DELAY_SHARE = 0.5;

/** The generator's own load as measured: what the decision reads. */
export type GeneratorSignals = Pick<LoadResult['generatorLoad'], 'cpuShare' | 'eventLoopDelayP99Ms'>;

const LATENCY: readonly ThresholdResult['metric'][] = ['p50', 'p90', 'p95', 'p97_5', 'p99', 'p99_9', 'max', 'mean'];

/** How late the generator's loop ran at p99, ms: the delay Node records, less its sampling interval. */
export function loopLatenessMs(g: GeneratorSignals): number {
  return Math.max(0, Math.round((g.eventLoopDelayP99Ms - LOOP_SAMPLE_MS) * 100) / 100);
}

/** The signals under which the generator answers for a latency figure of `latencyMs` as a whole (see the constants). */
export function boundSignals(g: GeneratorSignals, latencyMs: number): BoundSignal[] {
  const late = loopLatenessMs(g);
  return [
    ...(g.cpuShare >= GENERATOR_BOUND_CPU ? (['cpu'] as const) : []),
    ...(late > 0 && latencyMs > 0 && late >= LOOP_DELAY_SHARE * latencyMs ? (['eventLoopDelay'] as const) : []),
  ];
}

/** Whether `value` meets a threshold's comparator and limit. */
export function meetsLimit(t: Pick<ThresholdResult, 'comparator' | 'limit'>, value: number): boolean {
  switch (t.comparator) {
    case '<':
      return value < t.limit;
    case '<=':
      return value <= t.limit;
    case '>':
      return value > t.limit;
    case '>=':
      return value >= t.limit;
  }
}

/** Where the target's own figure lies, and the signals that widened the range; undefined when the generator changes nothing. */
function targetRange(
  t: ThresholdResult,
  g: GeneratorSignals,
  profile: readonly BoundSignal[],
  answered: boolean,
): { low: number; high: number; signals: readonly BoundSignal[]; why: string; so: string } | undefined {
  const figure = t.measured;
  const late = loopLatenessMs(g);
  const said = (signals: readonly BoundSignal[], against: string) =>
    signals
      .map((s) =>
        s === 'cpu' ? `it used ${Math.round(g.cpuShare * 100)}% of a core` : `its event loop ran ${late} ms late at p99${against}`,
      )
      .join(', ');
  if (LATENCY.includes(t.metric)) {
    const whole = boundSignals(g, figure);
    if (whole.length > 0)
      return {
        low: 0,
        high: figure,
        signals: whole,
        why: said(whole, `, against ${figure} ms measured`),
        so: `the target's own ${t.metric} is anywhere from 0 to ${figure} ms`,
      };
    if (late === 0) return undefined;
    return {
      low: Math.max(0, figure - late),
      high: figure,
      signals: ['eventLoopDelay'],
      why: said(['eventLoopDelay'], ''),
      so: `the target's own ${t.metric} is anywhere from ${Math.round(Math.max(0, figure - late) * 100) / 100} to ${figure} ms, on both sides of the limit`,
    };
  }
  if (profile.length === 0) return undefined;
  // A bound generator sends and reads fewer answers than the target could give; over time its own stalls move the p99s a drift compares.
  if (t.metric === 'throughput')
    return {
      low: figure,
      high: Infinity,
      signals: profile,
      why: said(profile, ''),
      so: `the target may answer more than the ${figure} req/s measured`,
    };
  if (t.metric === 'drift')
    return {
      low: 0,
      high: Infinity,
      signals: profile,
      why: said(profile, ''),
      so: 'the p99s a drift compares over time are partly its own',
    };
  // A request not answered was dropped (due while every connection waited, on the target or on the generator's own
  // reading of answers already in its sockets), timed out, or failed on its socket. Only a generator with no idle time
  // (its CPU) leaves answers unread long enough for that; its loop late against a fast target's p99 (a millisecond
  // against two) says nothing of drops, and a deadline that passed while it stalled is swept after it reads its
  // sockets (suites/load/sender.ts).
  if (t.metric === 'answered' && answered && profile.includes('cpu'))
    return {
      low: figure,
      high: 100,
      signals: ['cpu'],
      why: said(['cpu'], ''),
      so: `the requests it counted unanswered may have waited on it, not on the target: the target's own share is anywhere from ${figure}% to 100%`,
    };
  return undefined;
}

/**
 * A profile's thresholds as the generator could judge them, and what made it
 * bound. Latency thresholds are judged over the range the target's own figure
 * lies in; throughput and drift, when the generator was bound against the
 * profile's p99 (`overallP99Ms`); the share answered (`answered`, as the load
 * phase judges since it records `answered.generatorAware`) when it was bound
 * by its CPU; error rate as it was.
 * A threshold not measured already (nothing answered) is left as it is.
 * `boundBy` holds the signals against the p99 and those of every threshold
 * the generator could not judge, so "the generator was bound" in a threshold
 * never stands beside `bound: false`.
 */
export function judgeAsGenerator(
  thresholds: readonly ThresholdResult[],
  g: GeneratorSignals,
  overallP99Ms: number,
  { answered = true }: { answered?: boolean } = {},
): { thresholds: ThresholdResult[]; boundBy: BoundSignal[] } {
  const profile = boundSignals(g, overallP99Ms);
  const signals = new Set<BoundSignal>(profile);
  const judged = thresholds.map((t): ThresholdResult => {
    if (t.outcome === 'inconclusive' || !thresholdMeasured(t)) return t;
    const range = targetRange(t, g, profile, answered);
    if (!range || meetsLimit(t, range.low) === meetsLimit(t, range.high)) return t;
    for (const s of range.signals) signals.add(s);
    return { ...t, outcome: 'inconclusive', reason: `${NOT_MEASURED}: the generator was bound (${range.why}): ${range.so}` };
  });
  return { thresholds: judged, boundBy: (['cpu', 'eventLoopDelay'] as const).filter((s) => signals.has(s)) };
}

/**
 * Why the generator counts as bound, in words for a report's load section
 * (empty when it was not): `bound by its CPU (92% of a core) and its event
 * loop (408 ms late at p99, where the p99 it measured was 193 ms): …`. A report of an
 * earlier version, without `boundBy`, was bound by its CPU share alone.
 */
export function boundWords(load: Pick<LoadResult, 'generatorLoad' | 'overall'>): string {
  const g = load.generatorLoad;
  if (!g.bound) return '';
  const by = g.boundBy ?? ['cpu'];
  const what = by.map((s) =>
    s === 'cpu'
      ? `its CPU (${Math.round(g.cpuShare * 100)}% of a core)`
      : `its event loop (${loopLatenessMs(g)} ms late at p99, where the p99 it measured was ${load.overall.latencyMs.p99} ms)`,
  );
  const latencies = g.boundBy
    ? '; a time threshold it could have breached by itself reads "not measured", never as the target\'s breach'
    : '';
  return `generator-bound by ${what.join(' and ')}: the load generator, not the target, was the limit${latencies}`;
}
