import { describe, expect, it } from 'vitest';
import { NEAR_OPENING_MS } from '../../../core/connection/stock.js';
import { DEFAULTS } from '../../../suites/defaults.js';
import {
  BUSY_SHARE,
  fixedConcurrency,
  FAR_PREFLIGHT_MS,
  InFlightGate,
  MAX_WIDENED,
  MIN_SAMPLES,
  NEAR_FACTOR,
  NEAR_SLACK_MS,
  SETTLED_SHARE,
  SLOW_SHARE,
  WIDEN_MIN_RTT_MS,
  Widening,
} from '../../../suites/session/in-flight.js';
import { reportSchema } from '../../../spec/report-schema.js';
import { newAjv } from '../../../spec/validate.js';

/** Widening asked for (`--widen-concurrency`): on what answers show alone, however quickly connections open. */
const ASKED = { onAnswersAlone: true };

/** A {@link Widening} that saw `ms` answered `times` times in a row. */
function after(w: Widening, ms: number, times: number): number {
  let limit = w.limit;
  for (let i = 0; i < times; i++) limit = w.saw(ms, true);
  return limit;
}

describe('the in-flight limit: widened while the round trip, not the target, is what answers wait for', () => {
  it('not widening, or given: the default or the given limit, a hard one', () => {
    expect(fixedConcurrency(undefined)).toEqual({ limit: 32, source: 'default' });
    expect(fixedConcurrency(1)).toEqual({ limit: 1, source: 'given' });
    expect(fixedConcurrency(256)).toEqual({ limit: 256, source: 'given' });
  });

  it('starts at the default, and keeps it until MIN_SAMPLES answers set the round trip', () => {
    const w = new Widening(ASKED);
    expect(w.limit).toBe(DEFAULTS.concurrency);
    expect(after(w, 100, MIN_SAMPLES - 1)).toBe(32);
    expect(w.saw(100, true)).toBe(33);
    expect(w.record).toEqual({ limit: 33, source: 'widened', rttMs: 100 });
  });

  it('far away, answers near the round trip widen it one each, to 4× the default and never past', () => {
    expect(MAX_WIDENED).toBe(128);
    const w = new Widening(ASKED);
    // A handshake on a new connection (two round trips) and a burst read late are still near.
    expect(after(w, 100, 60)).toBe(32 + 60 - MIN_SAMPLES + 1);
    expect(w.saw(2 * 100, true)).toBe(86);
    expect(after(w, 100, 500)).toBe(MAX_WIDENED);
    expect(w.record).toEqual({ limit: 128, source: 'widened', rttMs: 100 });
  });

  it("a run's first answers, slow for the suite's own reasons, do not set the round trip: counted again from a much shorter one", () => {
    const w = new Widening(ASKED);
    // A cold start on loopback: the first answers wait for code to compile and connections to open, then they are quick.
    after(w, 20, MIN_SAMPLES / 2);
    expect(after(w, 20 * SETTLED_SHARE - 1, MIN_SAMPLES - 1)).toBe(32);
    expect(after(w, 2, 100)).toBe(32);
    expect(w.record).toEqual({ limit: 32, source: 'default' });
    // Far away, a handshake's two round trips first: the round trip is settled by the answers after them.
    const far = new Widening(ASKED);
    after(far, 200, MIN_SAMPLES / 2);
    expect(after(far, 100, MIN_SAMPLES - 1)).toBe(32);
    expect(after(far, 100, 10)).toBe(42);
    // The record names the round trip the widest limit was reached for.
    after(far, 1, 10);
    expect(far.record).toEqual({ limit: 42, source: 'widened', rttMs: 100 });
  });

  it.each([429, 500, 503])(
    'a %i (a limiter, an overloaded target or a proxy) puts it back to the default for the rest of the run',
    (_status) => {
      const w = new Widening(ASKED);
      expect(after(w, 100, 30)).toBe(32 + 30 - MIN_SAMPLES + 1);
      expect(w.hold()).toBe(32);
      expect(after(w, 100, 100)).toBe(32);
      // What was reached before stays on record.
      expect(w.record).toEqual({ limit: 55, source: 'widened', rttMs: 100 });
    },
  );

  it('not asked (the default), it widens only while connections take NEAR_OPENING_MS or more to open too', () => {
    const answers = (w: Widening, openingMs: number | undefined) => {
      for (let i = 0; i < 50; i++) w.saw(100, true, { openingMs });
      return w.limit;
    };
    // A far target: its handshakes take the round trip as well.
    expect(answers(new Widening(), 100)).toBe(32 + 50 - MIN_SAMPLES + 1);
    // Answers 100 ms away, handshakes under a millisecond: a proxy or balancer near the suite, or the target's own slowness.
    expect(answers(new Widening(), 0.4)).toBe(32);
    expect(answers(new Widening(), NEAR_OPENING_MS - 0.1)).toBe(32);
    // No connection opened yet: nothing says the target is far.
    expect(answers(new Widening(), undefined)).toBe(32);
    // Asked for, the answers alone decide.
    expect(answers(new Widening(ASKED), 0.4)).toBe(32 + 50 - MIN_SAMPLES + 1);
  });

  it('on loopback (a round trip under WIDEN_MIN_RTT_MS) it stays at the default', () => {
    const w = new Widening(ASKED);
    expect(after(w, WIDEN_MIN_RTT_MS - 0.5, 500)).toBe(32);
    expect(w.record).toEqual({ limit: 32, source: 'default' });
  });

  it('a target that queues (answers far over the shortest) takes it back down, never under the default; no answer halves it', () => {
    const w = new Widening(ASKED);
    after(w, 50, 100);
    expect(w.limit).toBe(32 + 100 - MIN_SAMPLES + 1);
    // Served one at a time: the more in flight, the longer each waits.
    expect(w.saw(50 * NEAR_FACTOR + NEAR_SLACK_MS + 1, true)).toBe(124);
    expect(after(w, 1_000, 30)).toBe(94);
    expect(w.saw(0, false)).toBe(47);
    expect(w.saw(0, false)).toBe(32);
    expect(after(w, 1_000, 30)).toBe(32);
    // The widest reached stays on the record.
    expect(w.record).toEqual({ limit: 125, source: 'widened', rttMs: 50 });
  });

  it('a round trip found short after all (a first exchange that erred long) stops the widening', () => {
    const w = new Widening(ASKED);
    after(w, 40, 20);
    expect(w.limit).toBe(45);
    expect(after(w, 2, 20)).toBe(32);
  });

  it("answers read late because the suite's own loop was behind are not the target's queue; the suite behind, it widens no further", () => {
    const w = new Widening(ASKED);
    after(w, 100, 20);
    expect(w.limit).toBe(45);
    // Read 400 ms late in a burst of answers the suite was judging: as near as the wire, but no wider while it is behind.
    expect(w.saw(500, true, { lateMs: 400 })).toBe(45);
    // The same answer with the loop keeping up: the target queued it.
    expect(w.saw(500, true, { lateMs: 0 })).toBe(44);
    // Behind by a quarter of the round trip or less: widened again.
    expect(w.saw(100 + 25, true, { lateMs: 25 })).toBe(45);
  });

  it("the suite's loop busy most of the time (its own CPU the bound) widens no further, though it runs its timers on time", () => {
    const w = new Widening(ASKED);
    expect(after(w, 100, 20)).toBe(45);
    expect(w.saw(100, true, { busy: BUSY_SHARE + 0.05 })).toBe(45);
    expect(w.saw(100, true, { busy: BUSY_SHARE - 0.05 })).toBe(46);
  });

  it('an answer read late by most of its time does not set the round trip: the loop may have been behind before it went out', () => {
    const w = new Widening(ASKED);
    expect(after(w, 100, 20)).toBe(45);
    // 120 ms, 115 of them late: 5 ms left is no round trip. Taken as one, every 100 ms answer after it would queue.
    expect(w.saw(120, true, { lateMs: 115 })).toBe(45);
    expect(after(w, 100, 10)).toBe(55);
  });

  it('a limit not used (fewer in flight, none waiting) is not widened by near answers: nothing showed the target takes more', () => {
    const w = new Widening(ASKED);
    expect(after(w, 100, 20)).toBe(45);
    expect(w.saw(100, true, { full: false })).toBe(45);
    expect(w.saw(1_000, true, { full: false })).toBe(44);
    expect(w.saw(100, true, { full: true })).toBe(45);
  });

  it('a far target whose preflight came back about as fast as its connection opened is far at start, and widens nothing yet', () => {
    const w = new Widening();
    // Opening 100 ms (the round trip), the preflight 2 round trips and a little work: the wire, not the target.
    expect(w.farAtStart(205, 100)).toBe(true);
    expect(w.limit).toBe(DEFAULTS.concurrency);
    expect(w.record).toEqual({ limit: DEFAULTS.concurrency, source: 'default' });
  });

  it("not far at start when the preflight shows the target's own work, a near opening, none measured, or a push back", () => {
    // Far, but the preflight took far longer than its opening: a slow target.
    expect(new Widening().farAtStart(100 * NEAR_FACTOR + NEAR_SLACK_MS + 1, 100)).toBe(false);
    // A near opening (loopback, one data centre; or a reverse proxy near the suite): slow answers are the target's.
    expect(new Widening().farAtStart(500, NEAR_OPENING_MS - 1)).toBe(false);
    expect(new Widening().farAtStart(500, undefined)).toBe(false);
    const held = new Widening(ASKED);
    held.hold();
    expect(held.farAtStart(205, 100)).toBe(false);
  });

  it('asked to widen on answers alone, the preflight alone says far: from FAR_PREFLIGHT_MS on', () => {
    // On loopback a cold preflight (a connection opened, the code's first pass) takes 10-15 ms.
    expect(new Widening(ASKED).farAtStart(FAR_PREFLIGHT_MS - 1, 0)).toBe(false);
    expect(new Widening(ASKED).farAtStart(FAR_PREFLIGHT_MS, 0)).toBe(true);
  });

  it('an answer slower than the deadline over SLOW_SHARE holds the default for the rest of the run: the target queues', () => {
    // A target serving one create at a time, 200 ms each, 60 ms away: 32 creates in flight answer over 6.4 s; widened on
    // quick pages before its creates, 63 in flight timed out at the 10 s deadline.
    const w = new Widening({ ...ASKED, timeoutMs: 10_000 });
    expect(after(w, 60, 100)).toBe(32 + 100 - MIN_SAMPLES + 1);
    expect(w.saw(10_000 / SLOW_SHARE + 1, true)).toBe(DEFAULTS.concurrency);
    expect(after(w, 60, 100)).toBe(DEFAULTS.concurrency);
    // Up to it, an answer is one of a queue as any other (one fewer), not a hold.
    const v = new Widening({ ...ASKED, timeoutMs: 10_000 });
    after(v, 60, 100);
    expect(v.saw(10_000 / SLOW_SHARE, true)).toBe(32 + 100 - MIN_SAMPLES + 1 - 1);
    // Slow only because the suite's own loop read it late: that wait is the suite's, no hold.
    expect(v.saw(10_000 / SLOW_SHARE + 500, true, { lateMs: 600 })).toBe(32 + 100 - MIN_SAMPLES + 1 - 2);
  });

  it('what it records is valid in the published report schema', () => {
    const validate = newAjv({ allErrors: true }).compile(reportSchema.properties.options.properties.concurrency);
    const widened = new Widening(ASKED);
    after(widened, 60, 20);
    for (const record of [widened.record, new Widening(ASKED).record, fixedConcurrency(undefined), fixedConcurrency(8)])
      expect(validate(record), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('InFlightGate', () => {
  it('holds requests over the limit; widened, the waiting ones start at once, in order', async () => {
    const gate = new InFlightGate(2);
    const started: number[] = [];
    const all = [0, 1, 2, 3, 4].map((i) => gate.acquire().then(() => started.push(i)));
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gate.limit = 4;
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2, 3]);
    gate.release();
    await Promise.all(all);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });

  it('is full, just after a release, when the released one and those still in flight filled it, or some wait', async () => {
    const gate = new InFlightGate(2);
    await gate.acquire();
    await gate.acquire();
    gate.release();
    expect(gate.full).toBe(true);
    gate.release();
    expect(gate.full).toBe(false);
    await gate.acquire();
    await gate.acquire();
    void gate.acquire();
    expect(gate.full).toBe(true);
  });

  it('narrowed, none starts until fewer than the limit are in flight', async () => {
    const gate = new InFlightGate(3);
    for (let i = 0; i < 3; i++) await gate.acquire();
    gate.limit = 1;
    let started = false;
    const waiting = gate.acquire().then(() => (started = true));
    gate.release();
    gate.release();
    await Promise.resolve();
    expect(started).toBe(false);
    gate.release();
    await waiting;
    expect(started).toBe(true);
  });
});
