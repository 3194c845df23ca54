/**
 * How many requests the run keeps in flight (functional phases): the limit a
 * caller gave is a hard one; without one the run keeps the default, or, asked
 * to widen (`widenConcurrency`, off by default: a slow target would get up to
 * 4× the connections at once, and one with a short listen backlog could then
 * time out a correct answer), starts at the default and, once the preflight
 * has measured the round trip, widens it
 * ({@link concurrencyFor}), following the shortest round trip seen
 * ({@link RoundTrip}) for the rest of the run. A long round trip means a request spends
 * its time on the wire, not in the target, so more of them in flight cost the
 * target little and save the run whole waves of waiting. `--rate-limit`
 * (suites/pacing.ts) still paces on top, whatever the limit.
 */
import { DEFAULTS } from '../defaults.js';
import type { ConcurrencyRecord } from '../../result/model.js';

export type { ConcurrencyRecord };

/** Round trip per step of widening, ms: each whole 10 ms adds the default's worth of requests in flight. */
export const WIDEN_STEP_MS = 10;

/**
 * The widest limit reached without one given: 4× the default. At it a
 * run's 770 requests are bound by what the checks wait for (16–17 dependent
 * waves measured at 30 and 100 ms, against ⌈770 / 128⌉ = 7 waves of
 * capacity), so more would not shorten the run; and a target sees at most
 * 4× the connections it saw of a default run before.
 */
export const MAX_WIDENED = 4 * DEFAULTS.concurrency;

/**
 * The limit for the rest of the run: `given` when given; otherwise the
 * default × ⌈rtt / 10 ms⌉, from the default to {@link MAX_WIDENED}. Up to
 * 10 ms (loopback, one data centre) nothing changes; up to 20 ms it doubles;
 * past 30 ms (another region) it is at its widest.
 */
export function concurrencyFor(given: number | undefined, rttMs: number | undefined): ConcurrencyRecord {
  if (given !== undefined) return { limit: given, source: 'given' };
  const base = DEFAULTS.concurrency;
  if (rttMs === undefined || !Number.isFinite(rttMs)) return { limit: base, source: 'default' };
  const limit = Math.min(MAX_WIDENED, Math.max(base, base * Math.ceil(rttMs / WIDEN_STEP_MS)));
  return { limit, source: limit > base ? 'widened' : 'default', rttMs: Math.round(rttMs * 10) / 10 };
}

/**
 * The round trip of a run, ms, as the shortest exchange seen so far (as
 * BBR's min-RTT filter: queueing and the target's work only ever lengthen an
 * exchange). The preflight's time counts halved (a third on https): its
 * connection was opened for it, one round trip for TCP's handshake (and
 * TLS 1.3's), one for the exchange; it also holds the suite's own cost of a
 * first request, so it errs long, and the next exchange on an open
 * connection corrects it. Through a proxy it errs long too, which only widens
 * within {@link MAX_WIDENED}.
 */
export class RoundTrip {
  #shortest: number | undefined;

  /** The estimate, ms; undefined before any answer. */
  get ms(): number | undefined {
    return this.#shortest;
  }

  /** The preflight's time, ms (its connection opened for it). */
  first(ms: number, https: boolean): void {
    this.saw(ms / (https ? 3 : 2));
  }

  /** An answered exchange's time, ms. */
  saw(ms: number): void {
    if (Number.isFinite(ms) && ms >= 0 && (this.#shortest === undefined || ms < this.#shortest)) this.#shortest = ms;
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
