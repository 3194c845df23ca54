/**
 * How many requests the run keeps in flight (functional phases). A limit a
 * caller gave is a hard one, never widened. Without one the run starts at the
 * default and, unless told not to (`widenConcurrency: false`), widens while
 * the round trip, not the target, is what answers wait for ({@link Widening}):
 * a long round trip means a request spends its time on the wire, so more of
 * them in flight cost the target little and save the run whole waves of
 * waiting. Loopback and one data centre (a round trip under
 * {@link WIDEN_MIN_RTT_MS}, measured by answers and, unless told to widen,
 * by connections opening too) keep the default, and so does the rest of a
 * run once the target pushed back (a 429 or a 5xx). `--rate-limit`
 * (suites/pacing.ts) still paces on top, whatever the limit; how fast the
 * connections behind a wider limit are opened is core/connection/stock.ts's.
 */
import { NEAR_OPENING_MS } from '../../core/connection/stock.js';
import { DEFAULTS } from '../defaults.js';
import type { ConcurrencyRecord } from '../../result/model.js';

export type { ConcurrencyRecord };

/**
 * The widest limit reached without one given: 4× the default. At it a
 * run's 770 requests are bound by what the checks wait for (16–17 dependent
 * waves measured at 30 and 100 ms, against ⌈770 / 128⌉ = 7 waves of
 * capacity), so more would not shorten the run; and a target sees at most
 * 4× the connections it saw of a default run before.
 */
export const MAX_WIDENED = 4 * DEFAULTS.concurrency;

/**
 * Round trip under which nothing widens, ms: the suite's own work per
 * exchange (~0.6 ms of CPU) times the default's 32 in flight is about 20 ms,
 * so there the run is bound by its own CPU, and more in flight would only
 * queue in its loop.
 */
export const WIDEN_MIN_RTT_MS = 10;

/**
 * A preflight answered in this or more, ms, says far to a run asked to widen on answers alone
 * ({@link Widening.farAtStart}): its time holds a connection's opening and a round trip (two round trips of 15 ms),
 * and the suite's first pass through its own code, which on loopback took 10–15 ms (bench-network at rtt 0).
 */
export const FAR_PREFLIGHT_MS = 30;

/**
 * Answers that set the round trip before the limit may widen: one answer is
 * no minimum. Counted again from an answer that lowers the round trip by
 * more than {@link SETTLED_SHARE}: a run's first answers are slow for the
 * suite's own reasons (code not yet compiled, connections opening), and a
 * near target would otherwise look ten milliseconds away.
 */
export const MIN_SAMPLES = 8;

/**
 * An answer slower than the request deadline over this holds the default for the rest of the run, as a push back
 * does ({@link Widening.hold}): the target queues what it is sent (one that serves a request at a time, s ms each,
 * answers 32 in flight after 32·s), and at 4× the default ({@link MAX_WIDENED}) the same queue would be 4× as long,
 * twice the deadline's reach with this share. The limit widens on cheap requests (pages read in 5 ms) and is then
 * used by dear ones (creates of 200 ms, 60 ms away: 63 in flight timed out where 32 did not); each operation's dear
 * answers are first seen at the default (setup's creates, the first pages), where they show the queue before any
 * widening makes it longer.
 */
export const SLOW_SHARE = 8;

/** An answer shorter than this share of the round trip so far says it was not yet known. */
export const SETTLED_SHARE = 0.75;

/**
 * An answer is near the round trip within this factor of the shortest (plus
 * {@link NEAR_SLACK_MS}): a network's jitter, a handshake on a new connection
 * (two round trips), or the suite reading a burst of answers, not a queue in
 * the target. A target that serves one request at a time, s ms each, answers
 * 32 in flight after 32·s: past 1.5 round trips it is no longer near (s over
 * 5 ms at 100 ms away), and the limit stays where the target's queue is
 * shorter than its deadline by far (128 · 5 ms).
 */
export const NEAR_FACTOR = 2.5;

/** Absolute slack of "near", ms: timer and scheduling noise. */
export const NEAR_SLACK_MS = 5;

/**
 * The suite's own loop may be behind by at most this share of the round trip
 * for the limit to widen: more, and answers wait for the suite, not the
 * wire, and more in flight would only wait longer.
 */
export const LAG_SHARE = 0.25;

/** The limit of a run that may not widen: the given one, or the default. */
export function fixedConcurrency(given: number | undefined): ConcurrencyRecord {
  return given === undefined ? { limit: DEFAULTS.concurrency, source: 'default' } : { limit: given, source: 'given' };
}

/**
 * The in-flight limit of a run that may widen, following every exchange as
 * TCP Vegas follows its segments: the round trip is the shortest answer seen
 * (queueing and the target's work only lengthen one, as BBR's min-RTT
 * filter); each answer near it adds one request in flight, up to
 * {@link MAX_WIDENED}; each that is not (the target, or the suite's own loop,
 * is queueing: more in flight would only queue more) takes one away, and a
 * request without answer halves it, never under the default. Pure: the
 * caller gives each exchange's time (test/unit/suites/in-flight.test.ts).
 */
export class Widening {
  readonly #onAnswersAlone: boolean;
  #limit: number = DEFAULTS.concurrency;
  #widest: number = DEFAULTS.concurrency;
  #rtt: number | undefined;
  /** The round trip the widest limit was reached for. */
  #widenedFor: number | undefined;
  /** Answers since the round trip was last found much shorter. */
  #samples = 0;
  /** The target pushed back once: the default from then on. */
  #held = false;
  /** An answer this slow holds the default ({@link SLOW_SHARE}). */
  readonly #slowMs: number;

  /**
   * `onAnswersAlone`: widen on what the answers show, however quickly connections open. Otherwise (the default) only
   * while connections take {@link NEAR_OPENING_MS} or more to open as well (the stock's own far, where it opens ahead): a handshake is answered by the target's
   * kernel, with none of its work or queue in it, so a quick one says the target is near, and slow answers are its
   * own (a cold start, a target that serves one request at a time), where more in flight would only queue. An
   * opening also holds the name's resolution and, with TLS, a round trip more and both ends' TLS work
   * (core/connection/stock.ts `quickestMs`): a near target behind a slow resolver, or a busy TLS one, may look far,
   * and is then widened only as far as its answers allow. Behind a reverse proxy or balancer near the suite (it ends
   * TCP there), a far target is tested at the default width: slower, never wider than every deployment was tested
   * at. A CONNECT proxy (HTTP_PROXY) answers once it has reached the target: its tunnels take the far round trip.
   */
  constructor({ onAnswersAlone = false, timeoutMs = DEFAULTS.timeoutMs }: { onAnswersAlone?: boolean; timeoutMs?: number } = {}) {
    this.#onAnswersAlone = onAnswersAlone;
    this.#slowMs = timeoutMs / SLOW_SHARE;
  }

  /** Requests in flight at most, now. */
  get limit(): number {
    return this.#limit;
  }

  /** What report.json records: the widest limit reached and, widened, the round trip it was widened for. */
  get record(): ConcurrencyRecord {
    return this.#widest > DEFAULTS.concurrency
      ? { limit: this.#widest, source: 'widened', rttMs: Math.round(this.#widenedFor! * 10) / 10 }
      : { limit: DEFAULTS.concurrency, source: 'default' };
  }

  /**
   * The target pushed back (a 429 or a 5xx: a limiter, an overloaded target,
   * or a proxy before it): the limit goes back to the default and stays there
   * for the rest of the run, the width every deployment was already tested
   * at. Returns the limit.
   */
  hold(): number {
    this.#held = true;
    return (this.#limit = DEFAULTS.concurrency);
  }

  /**
   * Whether the preflight, answered after `ms` (`openingMs` the quickest opening then, undefined when none was
   * measured), says the target is far, where the run opens the connections of its widest ahead: openings that took
   * {@link NEAR_OPENING_MS} or more (the wire is long, with none of the target's work in them) and a preflight
   * answered within {@link NEAR_FACTOR} of that (its own connection's opening and one round trip are in it: the
   * target did little besides); asked to widen on answers alone, a preflight of {@link FAR_PREFLIGHT_MS} or more. It
   * widens nothing: one answer cannot show a queue (a target serving one request at a time answers one as fast as
   * any), and only answers near the round trip do ({@link saw}).
   */
  farAtStart(ms: number, openingMs: number | undefined): boolean {
    if (this.#held || !Number.isFinite(ms)) return false;
    const opening = openingMs ?? 0;
    if (opening >= NEAR_OPENING_MS) return ms <= opening * NEAR_FACTOR + NEAR_SLACK_MS;
    return this.#onAnswersAlone && ms >= FAR_PREFLIGHT_MS;
  }

  /**
   * An exchange ended after `ms`, answered or not; returns the limit from now
   * on. `lateMs`: how far behind the suite's own loop was when it was read
   * (answers read in a burst wait for the ones read before them: that wait is
   * the suite's, not the target's). `full`: whether the limit was used
   * (requests waited for it, or it was all in flight): only then does a near
   * answer tell that the target takes that many at once (RFC 7661's point:
   * a window not used is not validated). `busy`: the share
   * of its recent time the suite's loop was busy ({@link LoopLag}).
   * `openingMs`: how long the quickest connection took to open (see the
   * constructor), undefined before one opened.
   * @see https://www.rfc-editor.org/rfc/rfc7661
   */
  saw(
    ms: number,
    answered: boolean,
    {
      lateMs = 0,
      busy = 0,
      full = true,
      openingMs,
    }: { lateMs?: number; busy?: number; full?: boolean; openingMs?: number | undefined } = {},
  ): number {
    if (this.#held) return this.#limit;
    // The wait of an answer read late is the suite's own, not the target's queue.
    if (answered && ms - lateMs > this.#slowMs) return this.hold();
    if (!answered) {
      this.#limit = Math.max(DEFAULTS.concurrency, Math.floor(this.#limit / 2));
      return this.#limit;
    }
    // Late by over half its time: the loop may have been behind before it went out too, and what is left is no round
    // trip (taken as one, it would set the shortest too short for the rest of the run).
    if (!Number.isFinite(ms) || ms < 0 || lateMs > ms / 2) return this.#limit;
    const own = Math.max(0, ms - lateMs);
    if (this.#rtt === undefined || own < this.#rtt * SETTLED_SHARE) this.#samples = 0;
    this.#rtt = Math.min(this.#rtt ?? own, own);
    if (++this.#samples < MIN_SAMPLES) return this.#limit;
    const far = this.#onAnswersAlone || (openingMs !== undefined && openingMs >= NEAR_OPENING_MS);
    const near = far && this.#rtt >= WIDEN_MIN_RTT_MS && own <= this.#rtt * NEAR_FACTOR + NEAR_SLACK_MS;
    // The suite itself behind or busy: no wider, whatever the wire does; nor wider than what was used.
    if (near && (lateMs > this.#rtt * LAG_SHARE || busy > BUSY_SHARE || !full)) return this.#limit;
    this.#limit = near ? Math.min(MAX_WIDENED, this.#limit + 1) : Math.max(DEFAULTS.concurrency, this.#limit - 1);
    if (this.#limit > this.#widest) {
      this.#widest = this.#limit;
      this.#widenedFor = this.#rtt;
    }
    return this.#limit;
  }
}

/** How often {@link LoopLag} looks at the loop, ms. */
export const LAG_TICK_MS = 10;

/**
 * How much of its recent time the suite's own loop spent busy, a share from 0 to 1, past which more in flight
 * would only wait for the suite: answers then queue in its sockets while it judges others, and that wait looks
 * like the wire's. Such a run is bound by its own CPU (loopback, one data centre), not by the round trip.
 */
export const BUSY_SHARE = 0.8;

/** How far back {@link LoopLag.busy} looks, ms: each tick's share weighs by how long it covered, against this. */
const BUSY_WINDOW_MS = 100;

/**
 * How far behind the suite's own event loop is, now, and how busy it has
 * been: `lateMs`, the time since a timer of {@link LAG_TICK_MS} last ran,
 * past its period (read while a burst of answers is handled, it is how long
 * the one read now waited for those before it); `busy`, the share of the last
 * ~100 ms the loop was not idle (Node's event loop utilisation). A loop kept
 * busy by many short callbacks runs its timers on time, so lateness alone
 * misses it. Stop it when done.
 */
export class LoopLag {
  #last = performance.now();
  #used = performance.eventLoopUtilization();
  #busy = 0;
  readonly #timer = setInterval(() => {
    const now = performance.now();
    const used = performance.eventLoopUtilization();
    // A tick that came late covers more time, and weighs more: a starved process still reads as busy as it was.
    const weight = 1 - Math.exp(-(now - this.#last) / BUSY_WINDOW_MS);
    this.#busy += weight * (performance.eventLoopUtilization(used, this.#used).utilization - this.#busy);
    this.#used = used;
    this.#last = now;
  }, LAG_TICK_MS).unref();

  /** How late the loop is now, ms (0 when it keeps up). */
  get lateMs(): number {
    return Math.max(0, performance.now() - this.#last - LAG_TICK_MS);
  }

  /** The share of the last ~100 ms the loop was busy, 0 to 1. */
  get busy(): number {
    return this.#busy;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/**
 * Requests in flight at most, a limit that may change while requests wait:
 * widened, the waiting ones start at once, in the order they came.
 */
export class InFlightGate {
  #limit: number;
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  get limit(): number {
    return this.#limit;
  }

  /** Sets the limit; requests already in flight over a narrower one finish, none starts until under it. */
  set limit(limit: number) {
    this.#limit = limit;
    while (this.#active < this.#limit && this.#waiting.length > 0) {
      this.#active++;
      this.#waiting.shift()!();
    }
  }

  /** Whether the limit is used: requests wait for it, or it is all in flight (the one just released counted). */
  get full(): boolean {
    return this.#waiting.length > 0 || this.#active + 1 >= this.#limit;
  }

  /** Resolves once the caller may send; {@link release} after the answer. */
  acquire(): Promise<void> {
    if (this.#active < this.#limit) {
      this.#active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** A request ended: its place goes straight to the next waiting one. */
  release(): void {
    const next = this.#active <= this.#limit ? this.#waiting.shift() : undefined;
    if (next) next();
    else this.#active--;
  }
}
