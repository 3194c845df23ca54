/**
 * The load phase's part of the result (result/model.ts `ConformanceResult.load`):
 * each profile's figures, timeline and thresholds, as report.json holds them.
 */
/** Operations a load profile exercises. */
export type LoadOperation = 'listPets' | 'createPet' | 'getPet';

/** Latency percentiles in milliseconds (µs resolution); `p97_5` is the 97.5th. */
export interface LatencyFigures {
  p50: number;
  p90: number;
  p95: number;
  p97_5: number;
  p99: number;
  p99_9: number;
  max: number;
  mean: number;
}

/** What one operation (or all of them) did during a profile. */
export interface LoadFigures {
  requests: number;
  /** Responses per second over the measured duration. */
  throughput: number;
  latencyMs: LatencyFigures;
  /** Errors apart by kind: non-2xx answers (expected 401s of auth probes excluded), timeouts, socket errors. */
  errors: { non2xx: number; timeouts: number; socketErrors: number };
  /** (non2xx + timeouts + socketErrors) / (requests + timeouts + socketErrors). */
  errorRate: number;
  /** Latency distribution from the HDR histogram: [percentile, ms] pairs, for charts. */
  distribution: [number, number][];
}

/** One threshold of a profile, evaluated after it ran. */
export interface ThresholdResult {
  /** Stable id: `LOAD-<PROFILE>-<OPERATION|ALL>-<METRIC>`. */
  id: string;
  /** As written: `p99 < 500ms`, `getPet.errorRate < 1%`. */
  expression: string;
  operation: LoadOperation | 'all';
  /** `answered`: the share of the requests due that got an answer, a threshold every profile has (`answered >= 90%`). */
  metric: 'p50' | 'p90' | 'p95' | 'p97_5' | 'p99' | 'p99_9' | 'max' | 'mean' | 'errorRate' | 'throughput' | 'drift' | 'answered';
  comparator: '<' | '<=' | '>' | '>=';
  limit: number;
  measured: number;
  /** `ms`, `%`, `req/s` or `x`. */
  unit: string;
  outcome: 'pass' | 'fail' | 'inconclusive';
  /** Why inconclusive (e.g. no request of that operation), why not measured, or how many requests were answered. */
  reason?: string;
}

/** What made the load generator bound: its CPU share, or its event loop's delay against the latencies it reported. */
export type BoundSignal = 'cpu' | 'eventLoopDelay';

/** One load profile's run. */
export interface LoadResult {
  profile: string;
  kind: 'closed' | 'rate' | 'ramp';
  description: string;
  /**
   * What generated the load, the suite's own sender for every kind: `raw`,
   * its raw lanes (a direct connection: undici's connector, the suite's own
   * HTTP/1.1 reader, suites/load/raw-lane.ts), or `undici`, one undici client
   * per connection (through a proxy, as other clients; every run before the
   * raw lanes). Reports of earlier versions say `autocannon` (closed loop,
   * ramp) or `paced-undici` (fixed rate).
   */
  generator: 'raw' | 'undici' | 'autocannon' | 'paced-undici';
  startedAt: string;
  durationMs: number;
  settings: {
    connections: number;
    durationSec: number;
    maxRequests: number;
    rate?: number;
    stages?: number[];
    stageSec?: number;
    mix: Record<LoadOperation, number>;
  };
  overall: LoadFigures;
  operations: Record<LoadOperation, LoadFigures>;
  /** Per-second figures, for charts and drift. */
  timeline: { second: number; requests: number; errors: number; p50: number; p99: number }[];
  /** Fixed-rate profiles: sends that were due but not made (all connections busy), and sends made late. */
  schedule?: { due: number; sent: number; dropped: number; late: number };
  /**
   * Requests answered (any status) of those due: sent (closed loop, ramp) or
   * due by the schedule (fixed rate). Below 90%, the `answered` threshold fails,
   * unless the generator was bound (`generatorAware`: the share is judged
   * against the generator's load, result/generator.ts; reports of earlier
   * versions lack it and judged the share as it was). Absent from reports of
   * earlier versions still.
   */
  answered?: { answered: number; due: number; generatorAware?: boolean };
  thresholds: ThresholdResult[];
  /**
   * The load generator's own load: CPU share of one core, event-loop delay at
   * p99 as Node samples it (every 10 ms, the interval included); `bound` when
   * it, not the target, answers for a figure it reported, `boundBy` the
   * signals that said so (result/generator.ts decides). Reports of earlier
   * versions have no `boundBy`: there `bound` meant a CPU share of 85% or more,
   * and no threshold was set aside for it.
   */
  generatorLoad: { cpuShare: number; eventLoopDelayP99Ms: number; bound: boolean; boundBy?: BoundSignal[] };
  /**
   * Responses checked with the functional validators during the profile.
   * `undecodable`: sampled bodies that were not judged because the generator
   * could have garbled them (autocannon, in earlier versions, decoded bodies
   * chunk by chunk); the suite's own sender keeps the bytes, so it is 0.
   */
  conformance: { sampled: number; undecodable: number; failedRules: string[] };
  /** Stress: the stage where a threshold first broke. */
  brokeAt?: { stage: number; connections: number; thresholds: string[] };
  /** Soak: how latency and errors moved from the first to the last tenth of the run. */
  drift?: { p99Ratio: number; errorRateDelta: number };
  /** Why the profile stopped before its duration, if it did. */
  stoppedEarly?: string;
}
