/**
 * Load profiles as data: a union on `kind`, thresholds written as expressions
 * (`p99 < 500ms`, `getPet.errorRate < 1%`, `throughput > 50/s`) and parsed once.
 * Metrics: latency percentiles (p50, p90, p95, p97_5, p99, p99_9), max and
 * mean, errorRate, throughput and drift; every profile also gets `answered >= 90%`
 * (run.ts), which is not written here.
 */
import { UsageError } from '../../core/errors.js';
import { meetsLimit } from '../../result/generator.js';
import type { LoadOperation, ThresholdResult } from '../../result/model.js';

export type LoadMix = Record<LoadOperation, number>;

interface ProfileBase {
  name: string;
  description: string;
  /** Hard cap on requests, whatever the duration. */
  maxRequests: number;
  /** Weights of the operations in the request mix. */
  mix: LoadMix;
  /** Threshold expressions, evaluated after the run. */
  thresholds: string[];
  /** Share of requests sent without a key, to check authentication still holds under load. Default 0.02. */
  authProbeShare?: number;
}

/** Closed loop: `connections` virtual users, one connection each, each sending a request as soon as its previous one is answered. */
export interface ClosedProfile extends ProfileBase {
  kind: 'closed';
  connections: number;
  durationSec: number;
}

/** Open loop: requests due at a fixed rate, evenly spaced; latency from when each was due (wrk2's method). */
export interface RateProfile extends ProfileBase {
  kind: 'rate';
  /** Requests per second. */
  rate: number;
  /** Most requests in flight; a due request beyond it is dropped and counted. */
  connections: number;
  durationSec: number;
}

/** Rising concurrency: closed-loop stages, stopping at the first stage where a threshold breaks. */
export interface RampProfile extends ProfileBase {
  kind: 'ramp';
  /** Connections per stage. */
  stages: number[];
  stageSec: number;
}

export type LoadProfile = ClosedProfile | RateProfile | RampProfile;

/** A profile is within its thresholds only when at least this share of the requests due were answered (run.ts; export-load writes it into its scripts). */
export const MIN_ANSWERED = 0.9;

/** Share of a profile's requests sent without a key when it names none (`authProbeShare`). */
export const DEFAULT_AUTH_PROBE_SHARE = 0.02;

/** The share of requests `profile` sends without a key: its own, else {@link DEFAULT_AUTH_PROBE_SHARE}. */
export function authProbeShareOf(profile: LoadProfile): number {
  return profile.authProbeShare ?? DEFAULT_AUTH_PROBE_SHARE;
}

/** How long `profile` runs, in seconds, at most (a ramp: all its stages). */
export function durationSecOf(profile: LoadProfile): number {
  return profile.kind === 'ramp' ? profile.stages.length * profile.stageSec : profile.durationSec;
}

/** The most connections `profile` opens at once (a ramp: its last, widest stage). */
export function peakConnectionsOf(profile: LoadProfile): number {
  return profile.kind === 'ramp' ? Math.max(...profile.stages) : profile.connections;
}

const MIX: LoadMix = { listPets: 6, getPet: 3, createPet: 1 };

/** The built-in profiles. `smoke` is the default. */
export const builtinProfiles: Record<string, LoadProfile> = {
  smoke: {
    name: 'smoke',
    kind: 'closed',
    description: 'A few seconds at 4 connections: safe against a shared staging server',
    connections: 4,
    durationSec: 3,
    maxRequests: 20_000,
    mix: MIX,
    thresholds: ['errorRate < 1%', 'p99 < 1000ms'],
  },
  baseline: {
    name: 'baseline',
    kind: 'closed',
    description: 'Sustained load: 32 connections for 20 seconds',
    connections: 32,
    durationSec: 20,
    maxRequests: 5_000_000,
    mix: MIX,
    thresholds: ['errorRate < 0.5%', 'p50 < 50ms', 'p99 < 500ms', 'throughput > 100/s'],
  },
  stress: {
    name: 'stress',
    kind: 'ramp',
    description: 'Doubling concurrency every 3 seconds, from 2 to 256 connections, until a threshold breaks',
    stages: [2, 4, 8, 16, 32, 64, 128, 256],
    stageSec: 3,
    maxRequests: 5_000_000,
    mix: MIX,
    thresholds: ['errorRate < 1%', 'p99 < 1000ms'],
  },
  soak: {
    name: 'soak',
    kind: 'closed',
    description: 'Ten minutes at 8 connections: does latency or the error rate drift?',
    connections: 8,
    durationSec: 600,
    maxRequests: 50_000_000,
    mix: MIX,
    thresholds: ['errorRate < 0.5%', 'p99 < 1000ms', 'drift < 2x'],
  },
};

/** `none` plus the built-in profile names. */
export const PROFILE_NAMES = ['none', ...Object.keys(builtinProfiles)] as const;

export type Metric = ThresholdResult['metric'];
export type Comparator = ThresholdResult['comparator'];

/** A parsed threshold. */
export interface Threshold {
  expression: string;
  operation: LoadOperation | 'all';
  metric: Metric;
  comparator: Comparator;
  limit: number;
  unit: string;
}

/**
 * The threshold every profile has besides its own, not written in it: at
 * least {@link MIN_ANSWERED} of the requests due were answered (any status).
 * run.ts judges it; the exported scripts hold it in their tool's terms.
 */
export const ANSWERED_THRESHOLD: Readonly<Threshold> = {
  expression: `answered >= ${MIN_ANSWERED * 100}%`,
  operation: 'all',
  metric: 'answered',
  comparator: '>=',
  limit: MIN_ANSWERED * 100,
  unit: '%',
};

const LATENCY = ['p50', 'p90', 'p95', 'p97_5', 'p99', 'p99_9', 'max', 'mean'] as const;
const OPERATIONS = ['listPets', 'createPet', 'getPet'] as const;
const THRESHOLD = /^\s*(?:(listPets|createPet|getPet|all)\.)?([a-zA-Z0-9_]+)\s*(<=|>=|<|>)\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|%|\/s|x)?\s*$/;

/** Parses a threshold expression; throws `UsageError` saying what is wrong. */
export function parseThreshold(expression: string, where: string): Threshold {
  const match = THRESHOLD.exec(expression);
  if (!match)
    throw new UsageError(
      `${where}: threshold "${expression}" is not "[operation.]metric < number unit" (e.g. "p99 < 500ms", "getPet.errorRate < 1%", "throughput > 50/s")`,
    );
  const [, op = 'all', metric = '', comparator = '<', number = '0', unit = ''] = match;
  const value = Number(number);
  if ((LATENCY as readonly string[]).includes(metric)) {
    if (unit !== 'ms' && unit !== 's') throw new UsageError(`${where}: threshold "${expression}": latency needs a unit, ms or s`);
    return {
      expression,
      operation: op as Threshold['operation'],
      metric: metric as Metric,
      comparator: comparator as Comparator,
      limit: unit === 's' ? value * 1000 : value,
      unit: 'ms',
    };
  }
  if (metric === 'errorRate') {
    if (unit !== '%') throw new UsageError(`${where}: threshold "${expression}": errorRate is a percentage (e.g. 1%)`);
    return { expression, operation: op as Threshold['operation'], metric, comparator: comparator as Comparator, limit: value, unit: '%' };
  }
  if (metric === 'throughput') {
    if (unit !== '/s') throw new UsageError(`${where}: threshold "${expression}": throughput is in requests per second (e.g. 100/s)`);
    return {
      expression,
      operation: op as Threshold['operation'],
      metric,
      comparator: comparator as Comparator,
      limit: value,
      unit: 'req/s',
    };
  }
  if (metric === 'drift') {
    if (unit !== 'x' || op !== 'all')
      throw new UsageError(`${where}: threshold "${expression}": drift is a ratio of the whole run (e.g. drift < 2x)`);
    return { expression, operation: 'all', metric, comparator: comparator as Comparator, limit: value, unit: 'x' };
  }
  throw new UsageError(
    `${where}: threshold "${expression}": unknown metric ${metric} (known: ${[...LATENCY, 'errorRate', 'throughput', 'drift'].join(', ')})`,
  );
}

/** Checks a profile's numbers and thresholds; throws `UsageError` naming the profile and the key. */
export function validateProfile(profile: LoadProfile): Threshold[] {
  const where = `load profile "${profile.name}"`;
  const positive = (key: string, value: number | undefined, max: number) => {
    if (value === undefined || !Number.isFinite(value) || value <= 0 || value > max)
      throw new UsageError(`${where}: ${key} must be a number above 0 and at most ${max}`);
  };
  positive('maxRequests', profile.maxRequests, 1e9);
  if (profile.kind === 'ramp') {
    if (!Array.isArray(profile.stages) || profile.stages.length === 0)
      throw new UsageError(`${where}: stages must list the connections of each stage`);
    for (const c of profile.stages) positive('stages[]', c, 10_000);
    positive('stageSec', profile.stageSec, 86_400);
  } else {
    positive('connections', profile.connections, 10_000);
    positive('durationSec', profile.durationSec, 86_400);
  }
  if (profile.kind === 'rate') positive('rate', profile.rate, 1_000_000);
  const weights = OPERATIONS.map((op) => profile.mix[op] ?? 0);
  if (weights.some((w) => !Number.isFinite(w) || w < 0) || weights.every((w) => w === 0))
    throw new UsageError(`${where}: mix weights must be numbers of at least 0, not all 0`);
  const share = profile.authProbeShare ?? 0;
  if (share < 0 || share > 0.5) throw new UsageError(`${where}: authProbeShare must be from 0 to 0.5`);
  return profile.thresholds.map((t) => parseThreshold(t, where));
}

/** Stable id of a threshold of a profile: `LOAD-SMOKE-ALL-P99`. */
export function thresholdId(profile: string, threshold: Threshold): string {
  return `LOAD-${profile}-${threshold.operation}-${threshold.metric}`.toUpperCase().replace(/[^A-Z0-9]+/g, '-');
}

/** Whether `measured` meets the threshold (result/generator.ts, which judges a threshold again over a range, owns the comparison). */
export function meets(threshold: Threshold, measured: number): boolean {
  return meetsLimit(threshold, measured);
}
