/**
 * The engine's options and how they are resolved: validated, defaults
 * applied, once, before anything is sent. A bad value is a `UsageError`
 * naming the option.
 */
import { randomBytes } from 'node:crypto';
import { UsageError } from '../core/errors.js';
import { type Setting, setting, wording } from '../core/wording.js';
import { checkConnectOptions, type ConnectOptions } from '../core/connection.js';
import { FINGERPRINT_IDS, type FingerprintId, isFingerprintId } from '../core/fingerprints.js';
import type { RedactedTransport } from '../core/boundary.js';
import { parseBaseUrl, targetOf, type Transport } from '../core/http.js';
import { isRuleId, type RuleId, rules } from '../spec/rules.js';
import { nearest } from '../core/nearest.js';
import type { CheckDefinition, SentExchange } from './check.js';
import { checkRunKey, checkSecrets, withCredentialHeaders } from './credentials.js';
import { DEFAULTS } from './defaults.js';
import type { RunEvent, SettingSources, Waiver } from '../result/model.js';
import { builtinProfiles, type LoadProfile, type Threshold, validateProfile } from './load/profiles.js';
import type { PreludeScheme } from './probe/prelude.js';
import type { Disguise } from '../core/clients.js';

/** Options of `runConformance`. Defaults are in {@link DEFAULTS}. */
export interface ConformanceOptions {
  /** Where the implementation lives; ends in /v1 in production. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>`; never written anywhere. */
  apiKey: string;
  /** Seed of all generated data. Default: a random one, reported. */
  seed?: number;
  /** Runs per property check. */
  numRuns?: number;
  /** SHOULD failures fail the run too. */
  strict?: boolean;
  /** Deadline of one request, headers and body, in ms. */
  timeoutMs?: number;
  /**
   * Before anything is sent: how long to wait for the target to give any HTTP answer (a server still starting, as a
   * CI job starts it beside the suite), in ms, asking again with backoff. Default 0: not waited for.
   */
  waitForMs?: number;
  /** Run only these rules. */
  only?: readonly string[];
  /** Do not run these rules. */
  skip?: readonly string[];
  /** Load profile to run after the functional checks: a built-in one (smoke, baseline, stress, soak), one of `loadProfiles`, or `none`. */
  load?: string;
  /** Profiles beyond the built-in ones (a config file's `profiles`), by name; they may replace a built-in one. */
  loadProfiles?: Record<string, LoadProfile>;
  /** Bytes of a response body read at most. */
  maxBodyBytes?: number;
  /** Extra CA certificates (PEM text) to trust for an https target. */
  ca?: string;
  /** Accept any TLS certificate (recorded in the report). */
  insecure?: boolean;
  /** The rest of how to reach the target (client certificate, proxy, extra headers), for every phase; `ca` and `insecure` above win over theirs. */
  connection?: ConnectOptions;
  /** Stops the run (SIGINT, SIGTERM, SIGHUP): nothing more is sent, what ran is kept, the rest is "not run", the verdict `interrupted`. Its `reason` names the signal (`'SIGTERM'`, `'SIGHUP'`; anything else counts as SIGINT). */
  signal?: AbortSignal;
  /** Time budget of one property check, ms. */
  propertyTimeLimitMs?: number;
  /** Known, tracked deviations: a failure a waiver covers is `waived` (see {@link applyWaivers}). */
  waivers?: readonly Waiver[];
  /** The date waivers are judged against. Default: now. */
  now?: Date;
  /** Called with every exchange of the functional phases as it completes (certify records the transcript with it). */
  onExchange?: (exchange: SentExchange) => void;
  /**
   * Sends the requests instead of an HTTP client to `baseUrl`. Its answers pass
   * the redaction boundary like the client's, unless it is one already
   * (verify's replay of a recorded transcript, core/transcript.ts).
   */
  transport?: Transport | RedactedTransport;
  /**
   * The preflight's `limit` (`none`: no `limit` parameter): 100 by default, its page also the setup's first look at
   * the store; with the differential probe's drawn prelude, drawn from the seed (suites/probe/prelude.ts
   * `drawnLimit`). Given, as `verify` replays a bundle: what that run sent (1, as runs did before 100; a drawn
   * one); the setup lists the store itself when the page was not a full one.
   */
  preflightLimit?: number | 'none';
  /** How the differential probe's prelude goes: `drawn` (default), or `fixed` as runs before it (`verify`'s replay of such a bundle). */
  prelude?: PreludeScheme;
  /**
   * How the clients and names of a run that speaks as clients or names its animals naturally vary (core/clients.ts):
   * `drawn` (default), each client's version and its application's habits, and coined names beside the vocabulary,
   * drawn from the seed; `fixed` as runs before them (`verify`'s replay of such a bundle).
   */
  disguise?: Disguise;
  /** Name prefix of the animals the run creates. Default: `pctest-` and four hex digits derived from the seed (`namePrefixFor`), so a seed fully determines the requests. */
  namePrefix?: string;
  /**
   * How the animals the run creates are named. `prefixed` (default): each name
   * is `namePrefix` and a word or generated text. `natural`: ordinary animal
   * names of many scripts and lengths, drawn from the seed, with no part common
   * to every run (certification: a target cannot tell the suite's animals by
   * their names); `namePrefix` is then refused.
   */
  names?: 'prefixed' | 'natural';
  /** Called with each event of the run, in order. */
  onEvent?: (event: RunEvent) => void;
  /** Time the run may spend waiting out 429 answers (Retry-After), in ms. Default 120 000. */
  maxWaitMs?: number;
  /**
   * How long after its 201 a created animal may still be missing (getPet 404,
   * absent from a listing it belongs on) while it is asked for again with
   * backoff, in ms: the document states no read-after-write guarantee. An
   * animal once seen must stay visible; past the window, a missing one fails
   * as it would at once. 0 asks once. Default 2 000.
   */
  visibilityWindowMs?: number;
  /** The suite's own requests per second at most (functional phases), for shared servers. Default: no limit. */
  rateLimit?: number;
  /**
   * Clients whose shapes the run's requests are sent under (core/fingerprints.ts),
   * each request under one of them, chosen from the seed. Default: none, the
   * tool's own shape. With two or more, answers are compared across clients
   * (the differential probe).
   */
  fingerprints?: readonly FingerprintId[];
  /** User-Agent of the tool's own shape. Default `petstore-conformance`. */
  userAgent?: string;
  /**
   * Pacing with jitter: before each request of the functional phases, a pause
   * of 0 to this many ms (drawn from the seed), so requests do not go out in
   * the suite's own rhythm. Default 0 (none); certification paces.
   */
  jitterMs?: number;
  /** Bound of the whole run, ms: past it, what ran is kept and the rest is not run (verdict error). Default 30 minutes. */
  maxTimeMs?: number;
  /** The checks to run. Default: the built-in ones. */
  checks?: readonly CheckDefinition[];
  /**
   * Stop sending once this many rules fail (a failing MUST rule, or a SHOULD
   * rule under `strict`): the check in flight is cut short, the rest is not
   * run (load included), and the verdict is non-conformant. Default: no bound.
   */
  maxFailures?: number;
  /**
   * Emit an `exchange` event for every exchange of the functional phases (one
   * line, redacted: a redaction per request, so off unless asked for; the CLI
   * asks with --verbose). Default false.
   */
  exchangeEvents?: boolean;
  /**
   * Requests in flight at most, on as many connections (functional phases).
   * Checks of a phase and the cases of a property run concurrently up to it;
   * 1 sends one request at a time. Outcomes do not depend on it. Default 32.
   */
  concurrency?: number;
  /**
   * Without `concurrency`: widen the requests in flight while the round trip, not the target, is what answers wait for
   * (suites/session/in-flight.ts), up to 4× the default; loopback keeps the default. Unset (the default): only while
   * connections take 10 ms or more to open as well (a far target, not a near proxy before one); true: on what the
   * answers show alone; false keeps the default.
   */
  widenConcurrency?: boolean;
  /** Where the caller took the target and the transport settings from (the CLI: flags, environment, which config file); recorded in report.json as given (`options.sources`). Default: not recorded. */
  sources?: SettingSources;
}

/** The options once resolved. */
export interface Resolved {
  target: string;
  seed: number;
  numRuns: number;
  strict: boolean;
  timeoutMs: number;
  only: RuleId[];
  skip: RuleId[];
  load: string;
  /** The profile to run, with its parsed thresholds; undefined for `none`. */
  profile: LoadProfile | undefined;
  thresholds: Threshold[];
  maxBodyBytes: number;
  propertyTimeLimitMs: number;
  insecure: boolean;
  maxWaitMs: number;
  /** Time to wait for a first HTTP answer before the run, ms (0: none). */
  waitForMs: number;
  visibilityWindowMs: number;
  rateLimit: number | undefined;
  maxTimeMs: number;
  maxFailures: number | undefined;
  concurrency: number;
  /** Whether the in-flight limit widens with the round trip (only when no `concurrency` was given). */
  widenConcurrency: boolean;
  /** Widening asked for (`widenConcurrency: true`): on what answers show alone, however quickly connections open. */
  widenOnAnswersAlone: boolean;
  /** The clients the run's requests are spread over (no repeats, in the order given); empty: the tool's own shape. */
  fingerprints: FingerprintId[];
  /** User-Agent of the tool's own shape, when not the default. */
  userAgent: string | undefined;
  /** Longest pause before a functional request, ms; 0: none. */
  jitterMs: number;
  /** How the differential probe's prelude goes. */
  prelude: PreludeScheme;
  /** How the run's clients and natural names vary. */
  disguise: Disguise;
  /** How every phase reaches the target: `options.connection` with `ca` and `insecure` applied. */
  connection: ConnectOptions;
  sources: SettingSources | undefined;
}

/** Validates options, then applies defaults. Throws `UsageError` naming the offending option. */
export function resolve(options: ConformanceOptions): Resolved {
  const url = parseBaseUrl(options.baseUrl);
  checkRunKey(options.apiKey, options.baseUrl);
  const ruleList = (name: Setting, ids: readonly string[] = []): RuleId[] => {
    const unknown = ids.filter((id) => !isRuleId(id));
    if (unknown.length > 0)
      throw new UsageError(
        wording`${setting(name)}: unknown rule id ${unknown.join(', ')}${didYouMean(
          unknown,
          rules.map((r) => r.id),
        )} (see petstore-conformance rules)`,
      );
    return ids as RuleId[];
  };
  const integer = (name: Setting, value: number | undefined, fallback: number, min: number, max: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < min || value > max)
      throw new UsageError(wording`${setting(name)} must be an integer from ${min} to ${max}, got ${value}`);
    return value;
  };
  // A page size the interface takes ("limit": 1 to 100), or none: a caller's value is sent as it is.
  const preflight = options.preflightLimit;
  if (preflight !== undefined && preflight !== 'none' && !(Number.isInteger(preflight) && preflight >= 1 && preflight <= 100))
    throw new UsageError(`preflightLimit must be an integer from 1 to 100, or 'none', got ${String(preflight)}`);
  const only = ruleList('only', options.only);
  const skip = ruleList('skip', options.skip);
  const mustLeft = rules.filter((r) => r.severity === 'MUST' && (only.length === 0 || only.includes(r.id)) && !skip.includes(r.id));
  if (mustLeft.length === 0)
    throw new UsageError(
      wording`${setting('only')}/${setting('skip')} leave no MUST rule to run: such a run could not show conformance (select at least one MUST rule; see petstore-conformance rules)`,
    );
  const load = options.load ?? DEFAULTS.load;
  const profiles: Record<string, LoadProfile> = { ...builtinProfiles, ...options.loadProfiles };
  const profile = load === 'none' ? undefined : profiles[load];
  if (load !== 'none' && !profile)
    throw new UsageError(
      wording`${setting('load')}: unknown profile "${load}"${didYouMean([load], ['none', ...Object.keys(profiles)])} (known: ${['none', ...Object.keys(profiles)].join(', ')})`,
    );
  const thresholds = profile ? validateProfile({ ...profile, name: load }) : [];
  if (options.names === 'natural' && options.namePrefix !== undefined)
    throw new UsageError('namePrefix: natural names have no prefix; give one or the other');
  const connection = connectionOf(options);
  checkSecrets(connection, options.baseUrl);
  return {
    target: targetOf(url),
    seed: integer('seed', options.seed, randomBytes(4).readInt32BE(0), -(2 ** 31), 2 ** 31 - 1),
    numRuns: integer('numRuns', options.numRuns, DEFAULTS.numRuns, 1, 10_000),
    strict: options.strict ?? DEFAULTS.strict,
    timeoutMs: integer('timeoutMs', options.timeoutMs, DEFAULTS.timeoutMs, 1, 600_000),
    only,
    skip,
    load,
    profile: profile ? { ...profile, name: load } : undefined,
    thresholds,
    maxBodyBytes: integer('maxBodyBytes', options.maxBodyBytes, DEFAULTS.maxBodyBytes, 1024, 256 * 1024 * 1024),
    propertyTimeLimitMs: options.propertyTimeLimitMs ?? DEFAULTS.propertyTimeLimitMs,
    insecure: connection.insecure === true,
    connection,
    maxWaitMs:
      integer(
        'maxWaitMs',
        options.maxWaitMs === undefined ? undefined : Math.round(options.maxWaitMs / 1000),
        DEFAULTS.maxWaitMs / 1000,
        0,
        86_400,
      ) * 1000,
    waitForMs: options.waitForMs === undefined ? 0 : waitFor(options.waitForMs),
    visibilityWindowMs:
      options.visibilityWindowMs === undefined ? DEFAULTS.visibilityWindowMs : window('visibilityWindowMs', options.visibilityWindowMs),
    rateLimit: options.rateLimit === undefined ? undefined : positive('rateLimit', options.rateLimit),
    maxTimeMs: options.maxTimeMs === undefined ? DEFAULTS.maxTimeMs : span('maxTimeMs', options.maxTimeMs),
    maxFailures: options.maxFailures === undefined ? undefined : integer('maxFailures', options.maxFailures, 1, 1, rules.length),
    concurrency: integer('concurrency', options.concurrency, DEFAULTS.concurrency, 1, 256),
    widenConcurrency: options.widenConcurrency !== false && options.concurrency === undefined,
    widenOnAnswersAlone: options.widenConcurrency === true,
    fingerprints: fingerprintsOf(options.fingerprints),
    userAgent: options.userAgent === undefined ? undefined : userAgentOf(options.userAgent),
    jitterMs: integer('jitterMs', options.jitterMs, 0, 0, 10_000),
    prelude: options.prelude ?? 'drawn',
    disguise: options.disguise ?? 'drawn',
    sources: options.sources,
  };
}

function connectionOf(options: ConformanceOptions): ConnectOptions {
  const connection: ConnectOptions = {
    ...options.connection,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    ...(options.insecure === undefined ? {} : { insecure: options.insecure }),
  };
  // An extra header that carries a credential by its name is a secret header too (suites/credentials.ts).
  return checkConnectOptions(withCredentialHeaders(connection, options.baseUrl));
}

/** The clients asked for, each once, in the order given; an unknown one is a usage error naming the known ones. */
function fingerprintsOf(ids: readonly string[] | undefined): FingerprintId[] {
  const unknown = (ids ?? []).filter((id) => !isFingerprintId(id));
  if (unknown.length > 0)
    throw new UsageError(
      wording`${setting('fingerprints')}: unknown client ${unknown.join(', ')} (known: ${FINGERPRINT_IDS.join(', ')}, or all)`,
    );
  return [...new Set(ids as readonly FingerprintId[])];
}

/** A User-Agent the suite can send: visible ASCII and spaces (RFC 9110 §10.1.5: product tokens and comments), 1 to 256 characters. */
function userAgentOf(value: string): string {
  if (!/^[\x21-\x7e](?:[\x20-\x7e]{0,254}[\x21-\x7e])?$/.test(value))
    throw new UsageError(wording`${setting('userAgent')} must be 1 to 256 printable ASCII characters, not starting or ending with a space`);
  return value;
}

/** A span of time from 0 to 10 minutes, in ms: longer than any answer takes, so a typo cannot stall a run for hours. */
function window(name: Setting, value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 600_000)
    throw new UsageError(wording`${setting(name)} must be a number of seconds from 0 to 600, got ${value / 1000}`);
  return value;
}

/** Time to wait for a target to start, from 0 to an hour, in ms. */
function waitFor(value: number): number {
  if (!Number.isFinite(value) || value < 0 || value > 3_600_000)
    throw new UsageError(wording`${setting('waitForMs')} must be a number of seconds from 0 to 3600, got ${value / 1000}`);
  return value;
}

/** A bound of time in ms, worded in seconds as the CLI and the config file take it (`--max-time 0` says 0, not 0 ms). */
function span(name: Setting, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new UsageError(wording`${setting(name)} must be a positive number of seconds, got ${value / 1000}`);
  return value;
}

function positive(name: Setting, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(wording`${setting(name)} must be a positive number, got ${value}`);
  return value;
}

/** `, did you mean X?` for the first typed word with a near known one; empty otherwise. */
function didYouMean(typed: readonly string[], known: readonly string[]): string {
  for (const word of typed) {
    const near = nearest(word, known);
    if (near) return `; did you mean ${near}?`;
  }
  return '';
}
