/**
 * Latency and error accounting for a load profile: an HDR histogram at
 * microsecond resolution per operation and overall, per-second figures for
 * charts and drift (see {@link LoadStats} for what runs on the response path).
 */
import * as hdr from 'hdr-histogram-js';
import type { LatencyFigures, LoadFigures, LoadOperation } from '../../result/model.js';

const OPERATIONS: readonly LoadOperation[] = ['listPets', 'createPet', 'getPet'];
/** Percentiles kept as the latency distribution of a report. */
const DISTRIBUTION = [0, 10, 25, 50, 75, 90, 95, 97.5, 99, 99.5, 99.9, 99.99, 100];

/** How the statistics get a histogram: {@link histogram} unless a test counts them. */
export type NewHistogram = () => hdr.Histogram;

function histogram(): hdr.Histogram {
  // 1 µs to 1 hour, 3 significant digits; grows if needed.
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
    useWebAssembly: false,
  });
}

const ms = (us: number) => Math.round(us) / 1000;

class Series {
  latency: hdr.Histogram;
  requests = 0;
  non2xx = 0;
  timeouts = 0;
  socketErrors = 0;

  constructor(newHistogram: NewHistogram) {
    this.latency = newHistogram();
  }

  /** Counts a response without recording its latency (the overall series: its histogram is the operations' sum). */
  count(ok: boolean): void {
    this.requests++;
    if (!ok) this.non2xx++;
  }

  record(latencyUs: number, ok: boolean): void {
    this.latency.recordValue(Math.max(1, Math.round(latencyUs)));
    this.requests++;
    if (!ok) this.non2xx++;
  }

  figures(seconds: number): LoadFigures {
    const h = this.latency;
    const at = (p: number) => (h.totalCount === 0 ? 0 : ms(h.getValueAtPercentile(p)));
    const latencyMs: LatencyFigures = {
      p50: at(50),
      p90: at(90),
      p95: at(95),
      p97_5: at(97.5),
      p99: at(99),
      p99_9: at(99.9),
      max: ms(h.maxValue),
      mean: h.totalCount === 0 ? 0 : ms(h.mean),
    };
    const failures = this.non2xx + this.timeouts + this.socketErrors;
    const attempts = this.requests + this.timeouts + this.socketErrors;
    return {
      requests: this.requests,
      throughput: seconds > 0 ? Math.round((this.requests / seconds) * 10) / 10 : 0,
      latencyMs,
      errors: { non2xx: this.non2xx, timeouts: this.timeouts, socketErrors: this.socketErrors },
      errorRate: attempts === 0 ? 0 : failures / attempts,
      distribution: h.totalCount === 0 ? [] : DISTRIBUTION.map((p) => [p, at(p)] as [number, number]),
    };
  }

  destroy(): void {
    this.latency.destroy();
  }
}

/** One second of the timeline. */
export interface TimelineRow {
  second: number;
  requests: number;
  errors: number;
  p50: number;
  p99: number;
}

/**
 * Everything measured during one profile.
 *
 * The response path only counts and records into histograms: each response's
 * latency goes into its operation's histogram and the current second's (the
 * overall histogram is the operations' sum, made once at the end). When a
 * second closes, its histogram is swapped with a spare one and its p50 and p99
 * are read later, on the next turn of the event loop (or when the timeline is
 * read, whichever comes first); the two histograms are reused for the whole
 * profile, so a second allocates nothing.
 */
export class LoadStats {
  readonly overall: Series;
  readonly operations: Record<LoadOperation, Series>;
  readonly #timeline: TimelineRow[] = [];
  readonly #second: Series;
  /** The histogram of the second that closed last, until its percentiles are read ({@link LoadStats.settle}); then empty. */
  #closed: hdr.Histogram;
  /** The row whose p50 and p99 are still to be read from {@link LoadStats.#closed}. */
  #pending: TimelineRow | undefined;
  #settling: NodeJS.Immediate | undefined;
  readonly #settleSoon = () => {
    this.#settling = undefined;
    this.settle();
  };
  #secondIndex = 0;
  readonly #started: number;

  /** `newHistogram`: how it gets each histogram (the project's tests count them). */
  constructor(started = performance.now(), newHistogram: NewHistogram = histogram) {
    this.#started = started;
    this.overall = new Series(newHistogram);
    this.operations = { listPets: new Series(newHistogram), createPet: new Series(newHistogram), getPet: new Series(newHistogram) };
    this.#second = new Series(newHistogram);
    this.#closed = newHistogram();
  }

  /** Per-second figures, each second's percentiles read. */
  get timeline(): TimelineRow[] {
    this.settle();
    return this.#timeline;
  }

  /** Records a response. `ok`: not an error (2xx, or the 401 an auth probe expects). */
  record(operation: LoadOperation, latencyUs: number, ok: boolean, at = performance.now()): void {
    this.#roll(at);
    this.overall.count(ok);
    this.operations[operation].record(latencyUs, ok);
    this.#second.record(latencyUs, ok);
  }

  /** Counts a request that got no response. */
  failure(kind: 'timeouts' | 'socketErrors', count = 1, operation?: LoadOperation, at = performance.now()): void {
    this.#roll(at);
    this.overall[kind] += count;
    this.#second[kind] += count;
    if (operation) this.operations[operation][kind] += count;
  }

  /** Reads the percentiles of the second that closed last, if not done yet. */
  settle(): void {
    const row = this.#pending;
    if (!row) return;
    this.#pending = undefined;
    const h = this.#closed;
    if (h.totalCount > 0) {
      row.p50 = ms(h.getValueAtPercentile(50));
      row.p99 = ms(h.getValueAtPercentile(99));
    }
    h.reset();
  }

  /** Closes the per-second series up to `at`: counts only; the percentiles are read later ({@link LoadStats.settle}). */
  #roll(at: number): void {
    const index = Math.floor((at - this.#started) / 1000);
    if (index <= this.#secondIndex) return;
    this.settle();
    const s = this.#second;
    const row: TimelineRow = {
      second: this.#secondIndex,
      requests: s.requests,
      errors: s.non2xx + s.timeouts + s.socketErrors,
      p50: 0,
      p99: 0,
    };
    this.#timeline.push(row);
    const closed = s.latency;
    s.latency = this.#closed;
    this.#closed = closed;
    this.#pending = row;
    s.requests = s.non2xx = s.timeouts = s.socketErrors = 0;
    // Seconds with nothing recorded in them.
    for (this.#secondIndex++; index > this.#secondIndex; this.#secondIndex++)
      this.#timeline.push({ second: this.#secondIndex, requests: 0, errors: 0, p50: 0, p99: 0 });
    this.#settling ??= setImmediate(this.#settleSoon);
  }

  /** Figures over `seconds` of measurement; closes the timeline (a last second shorter than half a second is left out: its rate would mislead). */
  finish(seconds: number, at = performance.now()): { overall: LoadFigures; operations: Record<LoadOperation, LoadFigures> } {
    const partial = (at - this.#started) / 1000 - this.#secondIndex;
    if (partial >= 0.5) this.#roll(at + 1000);
    this.settle();
    if (this.#settling) clearImmediate(this.#settling);
    this.#settling = undefined;
    for (const op of OPERATIONS) this.overall.latency.add(this.operations[op].latency);
    const operations = Object.fromEntries(OPERATIONS.map((op) => [op, this.operations[op].figures(seconds)])) as Record<
      LoadOperation,
      LoadFigures
    >;
    const result = { overall: this.overall.figures(seconds), operations };
    for (const series of [this.overall, this.#second, ...Object.values(this.operations)]) series.destroy();
    this.#closed.destroy();
    return result;
  }
}
