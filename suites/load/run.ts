/**
 * Runs one load profile: its stages, the figures, the thresholds, the load
 * generator's own load. Every profile is bounded in time and requests and
 * stops by itself, also when the target stops answering (requests time out).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { LoadFigures, LoadOperation, LoadResult, RunEvent, ThresholdResult } from '../model.js';
import { runClosed, type Observed } from './closed.js';
import type { MixRequest } from './mix.js';
import { runPaced } from './paced.js';
import { type LoadProfile, meets, type Threshold, thresholdId } from './profiles.js';
import { LoadStats } from './stats.js';

/** The generator counts as the limit when it used this share of a core or more. */
export const GENERATOR_BOUND_CPU = 0.85;

export interface LoadRunDeps {
  baseUrl: string;
  authorization: string;
  requests: readonly MixRequest[];
  timeoutMs: number;
  /** Whether this response's body should be kept and judged. */
  sample: (request: MixRequest) => boolean;
  /** A response the conformance-under-load check looks at. */
  judge: (observed: Observed) => void;
  emit: (event: RunEvent) => void;
}

/** Runs `profile`; `thresholds` are its parsed threshold expressions. */
export async function runProfile(profile: LoadProfile, thresholds: readonly Threshold[], deps: LoadRunDeps): Promise<Omit<LoadResult, 'conformance'>> {
  const startedAt = new Date();
  const cpu = process.cpuUsage();
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const started = performance.now();
  const stats = new LoadStats(started);
  const durationSec = profile.kind === 'ramp' ? profile.stages.length * profile.stageSec : profile.durationSec;
  const tick = (elapsedSec: number) => {
    const seconds = Math.max(1, (performance.now() - started) / 1000);
    const last = stats.timeline.at(-1);
    deps.emit({ type: 'load-tick', profile: profile.name, elapsedSec, durationSec, requests: stats.overall.requests, throughput: Math.round(stats.overall.requests / seconds), p99Ms: last?.p99 ?? 0 });
  };
  const record = (into: LoadStats[]) => ({
    onResponse: (observed: Observed) => {
      const ok = observed.request.authProbe ? observed.status === 401 : observed.status >= 200 && observed.status < 300;
      for (const s of into) s.record(observed.request.operation, observed.latencyUs, ok);
      if (observed.body !== undefined) deps.judge(observed);
    },
    onFailure: (kind: 'timeouts' | 'socketErrors') => {
      for (const s of into) s.failure(kind);
    },
  });
  deps.emit({ type: 'load-start', profile: profile.name, durationSec });

  let schedule: LoadResult['schedule'];
  let brokeAt: LoadResult['brokeAt'];
  let stoppedEarly: string | undefined;
  let remaining = profile.maxRequests;
  let held: ThresholdResult[] | undefined;
  if (profile.kind === 'closed') {
    const run = await runClosed({ baseUrl: deps.baseUrl, requests: deps.requests, authorization: deps.authorization, connections: profile.connections, durationSec: profile.durationSec, maxRequests: profile.maxRequests, timeoutSec: Math.max(1, Math.ceil(deps.timeoutMs / 1000)), sample: deps.sample, ...record([stats]), onTick: tick });
    stoppedEarly = run.stoppedEarly;
  } else if (profile.kind === 'rate') {
    const run = await runPaced({ baseUrl: deps.baseUrl, requests: deps.requests, authorization: deps.authorization, rate: profile.rate, connections: profile.connections, durationSec: profile.durationSec, maxRequests: profile.maxRequests, timeoutMs: deps.timeoutMs, sample: deps.sample, ...record([stats]), onTick: tick });
    schedule = run.schedule;
  } else {
    for (const [index, connections] of profile.stages.entries()) {
      const stage = new LoadStats();
      const stageStarted = performance.now();
      await runClosed({ baseUrl: deps.baseUrl, requests: deps.requests, authorization: deps.authorization, connections, durationSec: profile.stageSec, maxRequests: Math.max(connections, remaining), timeoutSec: Math.max(1, Math.ceil(deps.timeoutMs / 1000)), sample: deps.sample, ...record([stats, stage]), onTick: tick });
      const figures = stage.finish((performance.now() - stageStarted) / 1000);
      remaining -= figures.overall.requests;
      const evaluated = evaluate(profile.name, thresholds, figures, undefined);
      const broken = evaluated.filter((t) => t.outcome === 'fail');
      if (broken.length === 0) held = evaluated.map((t) => ({ ...t, reason: `measured at ${connections} connections, the last stage that held` }));
      if (broken.length > 0) {
        brokeAt = { stage: index + 1, connections, thresholds: broken.map((t) => `${t.expression} (measured ${t.measured}${t.unit})`) };
        if (index < profile.stages.length - 1) stoppedEarly = `a threshold broke at ${connections} connections`;
        break;
      }
      if (remaining <= 0) {
        stoppedEarly = 'the request cap was reached';
        break;
      }
    }
  }

  const durationMs = performance.now() - started;
  loopDelay.disable();
  const used = process.cpuUsage(cpu);
  const cpuShare = (used.user + used.system) / 1000 / durationMs;
  const figures = stats.finish(durationMs / 1000);
  const timeline = stats.timeline;
  const drift = profile.thresholds.some((t) => t.includes('drift')) ? measureDrift(timeline) : undefined;
  // A stress profile looks for where it breaks: its thresholds are judged on the last stage that held (failing when none did).
  const judged = profile.kind === 'ramp' && brokeAt && held ? held : evaluate(profile.name, thresholds, figures, drift);
  deps.emit({ type: 'load-end', profile: profile.name, thresholdsFailed: judged.filter((t) => t.outcome === 'fail').length });
  return {
    profile: profile.name,
    kind: profile.kind,
    description: profile.description,
    generator: profile.kind === 'rate' ? 'paced-undici' : 'autocannon',
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(durationMs),
    settings: {
      connections: profile.kind === 'ramp' ? Math.max(...profile.stages) : profile.connections,
      durationSec,
      maxRequests: profile.maxRequests,
      ...(profile.kind === 'rate' ? { rate: profile.rate } : {}),
      ...(profile.kind === 'ramp' ? { stages: profile.stages, stageSec: profile.stageSec } : {}),
      mix: profile.mix,
    },
    overall: figures.overall,
    operations: figures.operations,
    timeline,
    ...(schedule ? { schedule } : {}),
    thresholds: judged,
    generatorLoad: { cpuShare: Math.round(cpuShare * 100) / 100, eventLoopDelayP99Ms: Math.round(loopDelay.percentile(99) / 1e4) / 100, bound: cpuShare >= GENERATOR_BOUND_CPU },
    ...(brokeAt ? { brokeAt } : {}),
    ...(drift ? { drift } : {}),
    ...(stoppedEarly ? { stoppedEarly } : {}),
  };
}

/** Evaluates thresholds against figures. A threshold on an operation that got no request is inconclusive. */
export function evaluate(profile: string, thresholds: readonly Threshold[], figures: { overall: LoadFigures; operations: Record<LoadOperation, LoadFigures> }, drift: LoadResult['drift']): ThresholdResult[] {
  return thresholds.map((t): ThresholdResult => {
    const base = { id: thresholdId(profile, t), expression: t.expression, operation: t.operation, metric: t.metric, comparator: t.comparator, limit: t.limit, unit: t.unit };
    const f = t.operation === 'all' ? figures.overall : figures.operations[t.operation];
    if (t.metric === 'drift') {
      if (!drift) return { ...base, measured: 0, outcome: 'inconclusive', reason: 'the run was too short to compare its first and last tenth' };
      return { ...base, measured: drift.p99Ratio, outcome: meets(t, drift.p99Ratio) ? 'pass' : 'fail' };
    }
    if (f.requests + f.errors.timeouts + f.errors.socketErrors === 0) return { ...base, measured: 0, outcome: 'inconclusive', reason: `no ${t.operation === 'all' ? '' : `${t.operation} `}request was answered` };
    const measured = t.metric === 'errorRate' ? Math.round(f.errorRate * 10000) / 100 : t.metric === 'throughput' ? f.throughput : f.latencyMs[t.metric];
    return { ...base, measured, outcome: meets(t, measured) ? 'pass' : 'fail' };
  });
}

/** Soak: the median p99 and the error rate of the last tenth of the run against the first. */
export function measureDrift(timeline: LoadResult['timeline']): LoadResult['drift'] {
  const slice = Math.floor(timeline.length / 10);
  if (slice < 2) return undefined;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const first = timeline.slice(1, 1 + slice);
  const last = timeline.slice(-slice - 1, -1);
  const rate = (rows: typeof timeline) => rows.reduce((n, r) => n + r.errors, 0) / Math.max(1, rows.reduce((n, r) => n + r.requests, 0));
  return { p99Ratio: Math.round((median(last.map((r) => r.p99)) / Math.max(0.001, median(first.map((r) => r.p99)))) * 100) / 100, errorRateDelta: Math.round((rate(last) - rate(first)) * 10000) / 10000 };
}
