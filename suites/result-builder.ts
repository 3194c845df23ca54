/**
 * The result of a run, built once its phases ended: the recorder's rule
 * results with each check's time, diagnoses and waivers applied, the summary
 * (verdict and counts asked of result/policy.ts) and what report.json records
 * of the run's settings. The run (suites/run.ts) redacts it and announces it.
 */
import { connectionRecord } from '../core/connection.js';
import type { FingerprintId } from '../core/fingerprints.js';
import { TOOL_VERSION } from '../core/version.js';
import type { Names } from '../generators/names.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import type { RuleId } from '../spec/rules.js';
import type { Phase } from './check.js';
import type { ConcurrencyRecord, ConformanceResult, LoadResult, Observation, RuleOutcome, RuleResult, Summary } from '../result/model.js';
import { decideVerdict, thresholdsOutcome } from '../result/policy.js';
import type { InterruptSignal } from '../result/reasons.js';
import type { ConformanceOptions, Resolved } from './options.js';
import { PHASES } from './plan.js';
import { applyWaivers } from './waivers.js';
import { withDiagnoses } from './diagnoses.js';

/** What a run hands over to build its result from. */
export interface ResultInput {
  settings: Resolved;
  options: ConformanceOptions;
  names: Names;
  /** The recorder's rule results and observations. */
  recorded: { rules: RuleResult[]; observations: Observation[] };
  /** Time each check took, ms. */
  checkTime: ReadonlyMap<string, number>;
  /** When each active check started, ms since the epoch. */
  checkStart?: ReadonlyMap<string, number>;
  /** Requests the run's transport sent. */
  requestsSent: number;
  /** The in-flight limit and why (suites/session/in-flight.ts). */
  concurrency: ConcurrencyRecord;
  /** The run's checks, counted. */
  checks: number;
  skippedPhases: ConformanceResult['skippedPhases'];
  loads: LoadResult[];
  startedAt: Date;
  /** Why the run stopped sending early, in words, if it did. */
  stopped?: string;
  abort?: Summary['abort'];
  interrupted?: InterruptSignal;
}

/** The result: rule results with times and waivers applied, and the summary; not yet redacted once more. */
export function buildResult(input: ResultInput): ConformanceResult {
  const { settings, options, names, recorded, checkTime, checkStart, startedAt, stopped, abort } = input;
  const tenths = (ms: number) => Math.round(ms * 10) / 10;
  const timed = recorded.rules.map((rule) => ({
    ...rule,
    checks: rule.checks.map((c) => {
      const started = checkStart?.get(c.id);
      return {
        ...c,
        ...(checkTime.has(c.id) ? { durationMs: tenths(checkTime.get(c.id)!) } : {}),
        ...(started !== undefined ? { startedMs: tenths(Math.max(0, started - startedAt.getTime())) } : {}),
      };
    }),
  }));
  const { rules, waivers } = applyWaivers(withDiagnoses(timed), options.waivers ?? [], options.now ?? new Date());
  const finishedAt = new Date();
  return {
    tool: { name: 'petstore-conformance', version: TOOL_VERSION },
    interfaceVersion: INTERFACE_VERSION,
    target: settings.target,
    seed: settings.seed,
    numRuns: settings.numRuns,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    options: {
      strict: settings.strict,
      timeoutMs: settings.timeoutMs,
      only: settings.only,
      skip: settings.skip,
      load: settings.load,
      insecure: settings.insecure,
      customCa: settings.connection.ca !== undefined,
      connection: connectionRecord(settings.connection),
      ...clientRecord(settings),
      ...(settings.sources ? { sources: settings.sources } : {}),
      ...(names.natural ? { names: 'natural' as const } : {}),
      // Clients or natural names drawn from the seed: what verify's replay must send again.
      ...((names.natural || settings.fingerprints.length > 0) && settings.disguise === 'drawn' ? { disguise: 'drawn' as const } : {}),
      concurrency: input.concurrency,
    },
    // Natural names have no prefix: the field is left out rather than given one no name starts with.
    ...(names.natural ? {} : { namePrefix: names.prefix }),
    summary: summarise(
      rules,
      settings.strict,
      input.requestsSent,
      input.checks,
      stopped,
      abort,
      input.loads,
      input.interrupted,
      waivers.filter((w) => w.status !== 'expired').map((w) => w.rule),
    ),
    rules,
    observations: recorded.observations,
    skippedPhases: [...input.skippedPhases].sort((a, b) => phaseOrder(a.phase) - phaseOrder(b.phase)),
    load: input.loads,
    waivers,
  };
}

/** Plan order, the load phase last. */
function phaseOrder(phase: Phase | 'load'): number {
  return phase === 'load' ? PHASES.length : PHASES.indexOf(phase);
}

/** What report.json records of the clients the run spoke as: the fingerprints, or a User-Agent of the tool's shape given, and the pacing. */
function clientRecord(settings: Resolved): { fingerprints?: FingerprintId[]; userAgent?: string; jitterMs?: number; prelude?: 'drawn' } {
  return {
    ...(settings.fingerprints.length > 0 ? { fingerprints: settings.fingerprints } : {}),
    // A probe's prelude in the drawn order (two clients or more): what verify's replay must send again.
    ...(settings.fingerprints.length > 1 && settings.prelude === 'drawn' ? { prelude: 'drawn' as const } : {}),
    ...(settings.userAgent === undefined ? {} : { userAgent: settings.userAgent }),
    ...(settings.jitterMs > 0 ? { jitterMs: settings.jitterMs } : {}),
  };
}

/** Rules by severity and outcome. */
function countOutcomes(rules: ConformanceResult['rules']): Summary['counts'] {
  const empty = (): Record<RuleOutcome, number> => ({ pass: 0, fail: 0, inconclusive: 0, error: 0, skip: 0, waived: 0 });
  const counts = { MUST: empty(), SHOULD: empty() };
  for (const rule of rules) counts[rule.severity][rule.outcome]++;
  return counts;
}

function summarise(
  rules: ConformanceResult['rules'],
  strict: boolean,
  requestsSent: number,
  checks: number,
  stopped: string | undefined,
  abort: Summary['abort'],
  loads: readonly LoadResult[],
  interrupted: InterruptSignal | undefined,
  waived: readonly RuleId[],
): Summary {
  const { verdict, reason, undecided } = decideVerdict({
    rules,
    strict,
    ...(abort ? { abort } : {}),
    ...(stopped ? { stopped } : {}),
    loads,
    ...(interrupted ? { interrupted } : {}),
    waived,
  });
  return {
    verdict,
    reason,
    strict,
    counts: countOutcomes(rules),
    requests: requestsSent,
    checks,
    ...(abort ? { abort } : {}),
    thresholds: thresholdsOutcome(loads),
    ...(interrupted ? { interrupted } : {}),
    ...(undecided.length ? { undecided } : {}),
  };
}
