/**
 * Latency and error accounting for a load profile: an HDR histogram at
 * microsecond resolution per operation and overall, per-second figures for
 * charts and drift.
 */
import * as hdr from 'hdr-histogram-js';
import type { LatencyFigures, LoadFigures, LoadOperation } from '../../result/model.js';

const OPERATIONS: readonly LoadOperation[] = ['listPets', 'createPet', 'getPet'];
/** Percentiles kept as the latency distribution of a report. */
const DISTRIBUTION = [0, 10, 25, 50, 75, 90, 95, 97.5, 99, 99.5, 99.9, 99.99, 100];

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
  readonly latency = histogram();
  requests = 0;
  non2xx = 0;
  timeouts = 0;
  socketErrors = 0;

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

/** Everything measured during one profile. */
export class LoadStats {
  readonly overall = new Series();
  readonly operations: Record<LoadOperation, Series> = { listPets: new Series(), createPet: new Series(), getPet: new Series() };
  readonly timeline: { second: number; requests: number; errors: number; p50: number; p99: number }[] = [];
  #second = new Series();
  #secondIndex = 0;
  readonly #started: number;

  constructor(started = performance.now()) {
    this.#started = started;
  }

  /** Records a response. `ok`: not an error (2xx, or the 401 an auth probe expects). */
  record(operation: LoadOperation, latencyUs: number, ok: boolean, at = performance.now()): void {
    this.#roll(at);
    this.overall.record(latencyUs, ok);
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

  /** Closes the per-second series up to `at`. */
  #roll(at: number): void {
    const index = Math.floor((at - this.#started) / 1000);
    while (index > this.#secondIndex) {
      const s = this.#second;
      const f = s.figures(1);
      this.timeline.push({
        second: this.#secondIndex,
        requests: s.requests,
        errors: s.non2xx + s.timeouts + s.socketErrors,
        p50: f.latencyMs.p50,
        p99: f.latencyMs.p99,
      });
      s.destroy();
      this.#second = new Series();
      this.#secondIndex++;
    }
  }

  /** Figures over `seconds` of measurement; closes the timeline (a last second shorter than half a second is left out: its rate would mislead). */
  finish(seconds: number, at = performance.now()): { overall: LoadFigures; operations: Record<LoadOperation, LoadFigures> } {
    const partial = (at - this.#started) / 1000 - this.#secondIndex;
    if (partial >= 0.5) this.#roll(at + 1000);
    const operations = Object.fromEntries(OPERATIONS.map((op) => [op, this.operations[op].figures(seconds)])) as Record<
      LoadOperation,
      LoadFigures
    >;
    const result = { overall: this.overall.figures(seconds), operations };
    for (const series of [this.overall, this.#second, ...Object.values(this.operations)]) series.destroy();
    return result;
  }
}
