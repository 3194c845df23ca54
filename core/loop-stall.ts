/**
 * The suite's own event loop, watched. A request's deadline is a timer; when
 * the loop is busy (a body costly to handle, a machine that starves the
 * process), the timer fires late, and before the answer that came meanwhile
 * is read (Node runs due timers before it reads sockets). Such a timeout says
 * nothing about the target. {@link LoopStalls} ticks every
 * {@link STALL_TICK_MS} and keeps the stretches where a tick came more than
 * {@link STALL_MS} late; the HTTP client asks it, for each timeout, whether
 * the loop was stalled when the deadline came due, and notes it on the error
 * (core/http.ts `stalledFor`), which the session then does not take for the
 * target's silence (suites/session.ts).
 */

/** How often the loop is looked at, ms. */
export const STALL_TICK_MS = 25;

/** A tick later than this (ms) is a stall: well above a garbage collection's pause, well below any deadline. */
export const STALL_MS = 100;

/** Stalls remembered, the latest: a deadline is asked about as it fires, so the recent ones are all that count. */
const KEPT = 64;

/** Time, and a repeating timer: the system's, or a test's. */
export interface LoopClock {
  /** Milliseconds, monotonic (`performance.now()`). */
  now(): number;
  /** Calls `tick` every `ms` until stopped; never keeps the process alive. */
  every(ms: number, tick: () => void): { stop(): void };
}

const SYSTEM_CLOCK: LoopClock = {
  now: () => performance.now(),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  },
};

/** Where the suite's own event loop stalled, recently (the module comment). Stop it when done. */
export class LoopStalls {
  readonly #clock: LoopClock;
  readonly #timer: { stop(): void };
  /** When the last tick ran. */
  #last: number;
  /** `[from, to]` of each stall, oldest first. */
  readonly #stalls: [number, number][] = [];

  constructor(clock: LoopClock = SYSTEM_CLOCK) {
    this.#clock = clock;
    this.#last = clock.now();
    this.#timer = clock.every(STALL_TICK_MS, () => this.#tick());
  }

  #tick(): void {
    const now = this.#clock.now();
    const due = this.#last + STALL_TICK_MS;
    if (now - due > STALL_MS) {
      this.#stalls.push([due, now]);
      if (this.#stalls.length > KEPT) this.#stalls.shift();
    }
    this.#last = now;
  }

  /** The time on this monitor's clock, ms: what {@link stalledAt} is asked about. */
  now(): number {
    return this.#clock.now();
  }

  /**
   * How long the loop was stalled around `at` (a time of the clock): the
   * length of the stall that covers it, in ms, rounded; 0 when the loop ran.
   * A stall still going on (no tick since it began: the caller runs right
   * after it) counts up to now. A stall is found a tick after it began, so it
   * is taken to cover that tick too.
   */
  stalledAt(at: number): number {
    const now = this.#clock.now();
    const due = this.#last + STALL_TICK_MS;
    const current: [number, number][] = now - due > STALL_MS ? [[due, now]] : [];
    for (const [from, to] of [...this.#stalls, ...current]) if (from - STALL_TICK_MS <= at && at <= to) return Math.round(to - from);
    return 0;
  }

  stop(): void {
    this.#timer.stop();
  }
}
