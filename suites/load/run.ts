/**
 * Runs one load profile: its stages, the figures, the thresholds, the load
 * generator's own load. Every profile is bounded in time and requests and
 * stops by itself, also when the target stops answering (requests time out).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { ConnectOptions } from '../../core/connection.js';
import type { RunClients } from '../../core/clients.js';
import type { FingerprintId } from '../../core/fingerprints.js';
import type { BoundSignal, LoadFigures, LoadOperation, LoadResult, RunEvent, ThresholdResult } from '../../result/model.js';
import { type GeneratorSignals, judgeAsGenerator, LOOP_SAMPLE_MS } from '../../result/generator.js';
import { NOT_MEASURED } from '../../result/policy.js';
import { runClosed } from './closed.js';
import type { MixRequest } from './mix.js';
import { runPaced } from './paced.js';
import {
  ANSWERED_THRESHOLD,
  durationSecOf,
  type LoadProfile,
  meets,
  MIN_ANSWERED,
  peakConnectionsOf,
  type Threshold,
  thresholdId,
} from './profiles.js';
import { type FailureKind, type LoadRun, type Observed, rawRoute, type Sampled } from './sender.js';
import { LoadStats } from './stats.js';

export interface LoadRunDeps {
  baseUrl: string;
  authorization: string;
  requests: readonly MixRequest[];
  /** Deadline of one request, ms, from when it is written to its connection. */
  timeoutMs: number;
  /** Bytes of a sampled body kept, at most (the run's read bound). Default 1 MiB. */
  maxBodyBytes?: number;
  /** How to connect: the run's one description (core/connection.ts). */
  connection?: ConnectOptions;
  /** The clients the lanes speak as, one per lane in turn (sender.ts). Default: the tool's lanes. */
  fingerprints?: readonly FingerprintId[];
  /** Each client as the run has it (core/clients.ts). */
  clients?: RunClients;
  /** Stops the profile at once (an interrupted run): what was measured is kept, `stoppedEarly` says why. */
  signal?: AbortSignal;
  /** Whether this response's body should be kept and judged. */
  sample: (request: MixRequest) => boolean;
  /** A response the conformance-under-load check looks at. */
  judge: (observed: Observed) => void;
  emit: (event: RunEvent) => void;
}

/** Runs `profile`; `thresholds` are its parsed threshold expressions. */
export async function runProfile(
  profile: LoadProfile,
  thresholds: readonly Threshold[],
  deps: LoadRunDeps,
): Promise<Omit<LoadResult, 'conformance'>> {
  const startedAt = new Date();
  const generator = watchGenerator();
  const started = performance.now();
  const stats = new LoadStats(started);
  const durationSec = durationSecOf(profile);
  const tick = (elapsedSec: number) => {
    const seconds = Math.max(1, (performance.now() - started) / 1000);
    const last = stats.timeline.at(-1);
    deps.emit({
      type: 'load-tick',
      profile: profile.name,
      elapsedSec,
      durationSec,
      requests: stats.overall.requests,
      throughput: Math.round(stats.overall.requests / seconds),
      p99Ms: last?.p99 ?? 0,
    });
  };
  const record = (into: LoadStats[]) => ({
    onResponse: (request: MixRequest, status: number, latencyUs: number, sampled: Sampled | undefined) => {
      const ok = request.authProbe ? status === 401 : status >= 200 && status < 300;
      for (const s of into) s.record(request.operation, latencyUs, ok);
      if (sampled) deps.judge({ request, status, latencyUs, ...sampled });
    },
    onFailure: (kind: FailureKind, request: MixRequest) => {
      for (const s of into) s.failure(kind, 1, request.operation);
    },
  });
  const common = (connections: number, durationSec: number, maxRequests: number, into: LoadStats[]): LoadRun => ({
    baseUrl: deps.baseUrl,
    requests: deps.requests,
    authorization: deps.authorization,
    connections,
    durationSec,
    maxRequests,
    timeoutMs: deps.timeoutMs,
    ...(deps.maxBodyBytes === undefined ? {} : { maxBodyBytes: deps.maxBodyBytes }),
    ...(deps.connection ? { connection: deps.connection } : {}),
    ...(deps.fingerprints ? { fingerprints: deps.fingerprints } : {}),
    ...(deps.clients ? { clients: deps.clients } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
    sample: deps.sample,
    ...record(into),
    onTick: tick,
  });
  deps.emit({ type: 'load-start', profile: profile.name, durationSec });

  let schedule: LoadResult['schedule'];
  let brokeAt: LoadResult['brokeAt'];
  let stoppedEarly: string | undefined;
  /** Set when the proxy failed tunnels in a row (sender.ts): the profile stopped, and measured the proxy, not the target. */
  let proxyFailed: string | undefined;
  let remaining = profile.maxRequests;
  let held: ThresholdResult[] | undefined;
  /** What made the generator bound in a stage of a ramp: a breach it set aside there says so in the profile's `boundBy`. */
  const stageBound = new Set<BoundSignal>();
  /** Requests due: sent (closed loop, ramp) or due by the schedule (fixed rate). */
  let due = 0;
  const perStage = thresholds.filter((t) => t.metric !== 'drift');
  if (profile.kind === 'closed') {
    const run = await runClosed(common(profile.connections, profile.durationSec, profile.maxRequests, [stats]));
    due = run.sent;
    stoppedEarly = run.stoppedEarly;
    proxyFailed = run.proxyFailed;
  } else if (profile.kind === 'rate') {
    const run = await runPaced({ ...common(profile.connections, profile.durationSec, profile.maxRequests, [stats]), rate: profile.rate });
    schedule = run.schedule;
    due = run.schedule.due;
    stoppedEarly = run.stoppedEarly;
    proxyFailed = run.proxyFailed;
  } else {
    for (const [index, connections] of profile.stages.entries()) {
      const stage = new LoadStats();
      const stageStarted = performance.now();
      const stageGenerator = watchGenerator();
      const run = await runClosed(common(connections, profile.stageSec, Math.max(connections, remaining), [stats, stage]));
      const stageLoad = stageGenerator.stop();
      due += run.sent;
      if (deps.signal?.aborted) {
        stoppedEarly = 'interrupted';
        break;
      }
      if (run.proxyFailed) {
        stoppedEarly = proxyFailed = run.proxyFailed;
        break;
      }
      const figures = stage.finish((performance.now() - stageStarted) / 1000);
      remaining -= run.sent;
      // A stage breaks only on what the target did: a breach its generator could have caused is not measured, and the ramp goes on.
      const stageJudged = judgeAsGenerator(
        [...evaluate(profile.name, perStage, figures, undefined), answeredThreshold(profile.name, figures.overall.requests, run.sent)],
        stageLoad,
        figures.overall.latencyMs.p99,
      );
      for (const s of stageJudged.boundBy) stageBound.add(s);
      const evaluated = stageJudged.thresholds;
      const broken = evaluated.filter((t) => t.outcome === 'fail');
      if (broken.length === 0)
        held = evaluated.map((t) => ({
          ...t,
          reason: `${t.reason ? `${t.reason}; ` : ''}measured at ${connections} connections, the last stage that held`,
        }));
      if (broken.length > 0) {
        brokeAt = {
          stage: index + 1,
          connections,
          thresholds: broken.map((t) => `${t.expression} (measured ${t.measured}${t.unit}${t.reason ? `: ${t.reason}` : ''})`),
        };
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
  const load = generator.stop();
  const figures = stats.finish(durationMs / 1000);
  const timeline = stats.timeline;
  const drift = profile.thresholds.some((t) => t.includes('drift')) ? measureDrift(timeline) : undefined;
  // A stress profile looks for where it breaks: its thresholds are judged on the last stage that held (failing when none did).
  const answered = { answered: figures.overall.requests, due, generatorAware: true };
  const measured =
    profile.kind === 'ramp' && brokeAt && held
      ? [
          ...held.filter((t) => t.metric !== 'answered'),
          ...evaluate(
            profile.name,
            thresholds.filter((t) => t.metric === 'drift'),
            figures,
            drift,
          ),
          ...held.filter((t) => t.metric === 'answered'),
        ]
      : judgeThresholds(profile.name, thresholds, figures, drift, answered);
  // What the generator could not measure honestly is not measured (result/generator.ts); judged on the figures as reported, as verify judges them.
  const honest = judgeAsGenerator(measured, load, figures.overall.latencyMs.p99);
  const boundBy = (['cpu', 'eventLoopDelay'] as const).filter((s) => honest.boundBy.includes(s) || stageBound.has(s));
  // Through a proxy that failed its tunnels, the figures are the proxy's: no threshold of the target's was measured.
  const judged = proxyFailed
    ? measured.map((t): ThresholdResult => ({ ...t, measured: 0, outcome: 'fail', reason: `${NOT_MEASURED}: ${proxyFailed}` }))
    : honest.thresholds;
  deps.emit({ type: 'load-end', profile: profile.name, thresholdsFailed: judged.filter((t) => t.outcome === 'fail').length });
  return {
    profile: profile.name,
    kind: profile.kind,
    description: profile.description,
    // Which lanes sent it (sender.ts rawRoute decides for the whole run).
    generator: rawRoute({
      baseUrl: deps.baseUrl,
      authorization: deps.authorization,
      connection: deps.connection,
      fingerprints: deps.fingerprints,
    })
      ? 'raw'
      : 'undici',
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(durationMs),
    settings: {
      connections: peakConnectionsOf(profile),
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
    answered,
    thresholds: judged,
    generatorLoad: { ...load, bound: boundBy.length > 0, boundBy },
    ...(brokeAt ? { brokeAt } : {}),
    ...(drift ? { drift } : {}),
    ...(stoppedEarly ? { stoppedEarly } : {}),
  };
}

/**
 * A profile's thresholds judged on its whole run: each of its expressions
 * against the figures, then the share answered; with `generator` (the
 * generator's recorded load), what it could not measure honestly is not
 * measured (result/generator.ts). `verify` judges a bundle's recorded figures
 * with it too, so a recorded pass the figures do not support is found.
 */
export function judgeThresholds(
  profile: string,
  thresholds: readonly Threshold[],
  figures: Pick<LoadResult, 'overall' | 'operations'>,
  drift: LoadResult['drift'],
  answered: NonNullable<LoadResult['answered']>,
  generator?: GeneratorSignals,
): ThresholdResult[] {
  const judged = [...evaluate(profile, thresholds, figures, drift), answeredThreshold(profile, answered.answered, answered.due)];
  return generator
    ? judgeAsGenerator(judged, generator, figures.overall.latencyMs.p99, { answered: answered.generatorAware === true }).thresholds
    : judged;
}

/**
 * Starts measuring the generator's own load: its CPU share of one core and
 * its event loop's delay, rounded as report.json keeps them, so that what is
 * decided from them here is what verify decides from the report.
 */
function watchGenerator(): { stop(): GeneratorSignals } {
  const cpu = process.cpuUsage();
  const loop = monitorEventLoopDelay({ resolution: LOOP_SAMPLE_MS });
  loop.enable();
  const started = performance.now();
  return {
    stop() {
      loop.disable();
      const used = process.cpuUsage(cpu);
      const share = (used.user + used.system) / 1000 / Math.max(1, performance.now() - started);
      return { cpuShare: Math.round(share * 100) / 100, eventLoopDelayP99Ms: Math.round(loop.percentile(99) / 1e4) / 100 };
    },
  };
}

/**
 * Evaluates thresholds against figures. A threshold is met only when it was
 * measured: one that cannot be computed fails (a latency with no response, an
 * `all` threshold with nothing answered, a drift over too short a run), except
 * a threshold on an operation that got no request at all, which is inconclusive.
 */
export function evaluate(
  profile: string,
  thresholds: readonly Threshold[],
  figures: { overall: LoadFigures; operations: Record<LoadOperation, LoadFigures> },
  drift: LoadResult['drift'],
): ThresholdResult[] {
  return thresholds.map((t): ThresholdResult => {
    const base = {
      id: thresholdId(profile, t),
      expression: t.expression,
      operation: t.operation,
      metric: t.metric,
      comparator: t.comparator,
      limit: t.limit,
      unit: t.unit,
    };
    const f = t.operation === 'all' ? figures.overall : figures.operations[t.operation];
    if (t.metric === 'drift') {
      if (!drift)
        return {
          ...base,
          measured: 0,
          outcome: 'fail',
          reason: `${NOT_MEASURED}: the run was too short to compare its first and last tenth (20 seconds of timeline at least)`,
        };
      return { ...base, measured: drift.p99Ratio, outcome: meets(t, drift.p99Ratio) ? 'pass' : 'fail' };
    }
    const sent = f.requests + f.errors.timeouts + f.errors.socketErrors;
    const which = t.operation === 'all' ? '' : `${t.operation} `;
    if (t.operation !== 'all' && sent === 0)
      return { ...base, measured: 0, outcome: 'inconclusive', reason: `no ${which}request was sent` };
    const latency = t.metric !== 'errorRate' && t.metric !== 'throughput';
    if (f.requests === 0 && (latency || t.operation === 'all')) {
      return {
        ...base,
        measured: 0,
        outcome: 'fail',
        reason: `${NOT_MEASURED}: no ${which}request was answered (${sent} sent: ${f.errors.timeouts} timeouts, ${f.errors.socketErrors} socket errors)`,
      };
    }
    const measured =
      t.metric === 'errorRate'
        ? Math.round(f.errorRate * 10000) / 100
        : t.metric === 'throughput'
          ? f.throughput
          : f.latencyMs[t.metric as keyof LoadFigures['latencyMs']];
    return { ...base, measured, outcome: meets(t, measured) ? 'pass' : 'fail' };
  });
}

/** The threshold every profile has: at least {@link MIN_ANSWERED} of the requests due were answered (any status). */
export function answeredThreshold(profile: string, answered: number, due: number): ThresholdResult {
  const threshold: Threshold = { ...ANSWERED_THRESHOLD };
  const share = due === 0 ? 0 : answered / due;
  const held = due > 0 && answered >= MIN_ANSWERED * due;
  return {
    id: thresholdId(profile, threshold),
    ...threshold,
    // Rounded down, so a share just under the limit never reads as the limit.
    measured: Math.floor(share * 10000) / 100,
    outcome: held ? 'pass' : 'fail',
    reason: held
      ? `${answered} of ${due} requests answered`
      : due === 0
        ? `${NOT_MEASURED}: no request was due`
        : `only ${answered} of ${due} requests answered`,
  };
}

/** Soak: the median p99 and the error rate of the last tenth of the run against the first. */
export function measureDrift(timeline: LoadResult['timeline']): LoadResult['drift'] {
  const slice = Math.floor(timeline.length / 10);
  if (slice < 2) return undefined;
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const first = timeline.slice(1, 1 + slice);
  const last = timeline.slice(-slice - 1, -1);
  const rate = (rows: typeof timeline) =>
    rows.reduce((n, r) => n + r.errors, 0) /
    Math.max(
      1,
      rows.reduce((n, r) => n + r.requests, 0),
    );
  return {
    p99Ratio: Math.round((median(last.map((r) => r.p99)) / Math.max(0.001, median(first.map((r) => r.p99)))) * 100) / 100,
    errorRateDelta: Math.round((rate(last) - rate(first)) * 10000) / 10000,
  };
}
