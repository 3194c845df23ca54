/**
 * The conformance engine: runs the checks against a target in phases and
 * returns the result report.json holds. It emits events as it goes; it never
 * imports a reporter or the CLI.
 */
import { randomBytes } from 'node:crypto';
import { PcError, PreflightError, UsageError } from '../core/errors.js';
import { checkConnectOptions, type ConnectOptions, connectionRecord, redactSecrets } from '../core/connection.js';
import { HttpClient, parseBaseUrl, targetOf, type Transport } from '../core/http.js';
import { RedactionBoundary } from '../core/boundary.js';
import { redactorFor } from '../core/redact.js';
import { TOOL_VERSION } from '../core/version.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import { isRuleId, type RuleId, rules, rules as catalog } from '../spec/rules.js';
import { type ActiveCheck, type Asserter, type CheckContext, type CheckDefinition, type Phase, type ResponseCheck, type SendOptions, type SentExchange, StoreState } from './check.js';
import { authVariants, checkRunKey } from './credentials.js';
import { EvidenceFactory, redactResult, redactingEmitter } from './evidence.js';
import type { ConformanceResult, LoadResult, RuleOutcome, RunEvent, Summary, Waiver, WaiverResult } from './model.js';
import { decideVerdict, failsRun, thresholdsOutcome } from './policy.js';
import { loadChecks, runLoadProfile } from './load/phase.js';
import { builtinProfiles, type LoadProfile, PROFILE_NAMES, type Threshold, validateProfile } from './load/profiles.js';

export type { RunEvent } from './model.js';
import { Recorder } from './recorder.js';
import { runProperty } from './property.js';
import { InPlanOrder, inCheck, mapBounded, runPhases } from './schedule.js';
import { builtinChecks } from './registry.js';
import { listPets } from './requests.js';
import { DEFAULTS } from './defaults.js';
import { PacingGate, retryAfterMs } from './pacing.js';
import { SilenceWatch } from './silence.js';

/** Options of {@link runConformance}. Defaults are in {@link DEFAULTS}. */
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
  /** Stops the run (SIGINT, SIGTERM): nothing more is sent, what ran is kept, the rest is "not run", the verdict `interrupted`. Its `reason` names the signal (`'SIGTERM'`; anything else counts as SIGINT). */
  signal?: AbortSignal;
  /** Time budget of one property check, ms. */
  propertyTimeLimitMs?: number;
  /** Known, tracked deviations: a failure a waiver covers is `waived` (see {@link applyWaivers}). */
  waivers?: readonly Waiver[];
  /** The date waivers are judged against. Default: now. */
  now?: Date;
  /** Called with every exchange of the functional phases as it completes (certify records the transcript with it). */
  onExchange?: (exchange: SentExchange) => void;
  /** Sends the requests instead of an HTTP client to `baseUrl` (verify replays a recorded transcript with it). */
  transport?: Transport;
  /** Name prefix of the animals the run creates. Default: `pctest-` and four random hex digits. */
  namePrefix?: string;
  /** Called with each event of the run, in order. */
  onEvent?: (event: RunEvent) => void;
  /** Time the run may spend waiting out 429 answers (Retry-After), in ms. Default 120 000. */
  maxWaitMs?: number;
  /** The suite's own requests per second at most (functional phases), for shared servers. Default: no limit. */
  rateLimit?: number;
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
}

export { DEFAULTS };

/** The phases, in order. The setup phase always runs: every other needs its animals. */
export const PHASES: readonly Phase[] = ['setup', 'listPets', 'createPet', 'getPet', 'storeOrders', 'auth'];

/**
 * What each phase reads, so waits for: listPets judges pages against the
 * animals setup created (and createPet, which adds more, waits for it, so no
 * page is judged against a store still growing); getPet reads back what
 * createPet created. storeOrders and auth need only setup's first animal.
 */
export const PHASE_AFTER: Readonly<Record<Phase, readonly Phase[]>> = {
  setup: [],
  listPets: ['setup'],
  createPet: ['listPets'],
  getPet: ['createPet'],
  storeOrders: ['setup'],
  auth: ['setup'],
};

/** Gaps the engine itself observes, outside any check. */
export const ENGINE_GAPS = ['GAP-RATE-LIMITS'] as const;

/** Thrown into a check when a request is still rate-limited after the run's wait budget: what depended on it is inconclusive. */
class RateLimited extends PcError {
  constructor(
    message: string,
    readonly exchange: SentExchange,
  ) {
    super('PC_ERR_RATE_LIMITED', message);
  }
}

export { STORE_INFERRED_RULES } from './property.js';

/** The check name of the preflight's request. */
const PREFLIGHT = 'preflight';

/** Exchanges in a row that got no response at all before the target is taken as gone. */
export const LOST_AFTER = 3;

/** Thrown into checks once the target has stopped answering: what was measured stays, the rest is reported as not run. */
class TargetLost extends Error {}

/** Thrown into checks once the run was interrupted (SIGINT, SIGTERM): what ran stays, the rest is reported as not run. */
class Interrupted extends TargetLost {
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(`interrupted by ${signal}`);
  }
}

/** Names `--load` takes without a config file. */
export const LOAD_PROFILES = PROFILE_NAMES;

/**
 * Runs every selected check against the target and returns the result. Throws
 * `PcError` for usage problems (bad options); a target that cannot be tested
 * (unreachable, key rejected) gives a result with `summary.abort` set.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceResult> {
  const settings = resolve(options);
  const startedAt = new Date();
  const checks = [...(options.checks ?? builtinChecks), ...(settings.profile ? loadChecks(settings.profile.name, (options.checks ?? builtinChecks).filter((c): c is ResponseCheck => c.kind === 'response')) : [])];
  const connection = settings.connection;
  // Secret headers (--secret-header) are redacted like the key, wherever evidence is built.
  const redactor = redactSecrets(redactorFor(options.apiKey), connection);
  const evidence = new EvidenceFactory(redactor, options.apiKey);
  const selected = (rule: RuleId) => (settings.only.length === 0 || settings.only.includes(rule)) && !settings.skip.includes(rule);
  const replay = (only: readonly RuleId[]) => `npx petstore-conformance --base-url ${settings.target} --api-key "$PETSTORE_API_KEY" --seed ${settings.seed} --num-runs ${settings.numRuns} --load ${settings.load} --only ${only.join(',')}`;
  const recorder = new Recorder({ checks, selected, evidence, replay, target: settings.target });
  const responseChecks = checks.filter((c): c is ResponseCheck => c.kind === 'response');
  // Set once the run must stop sending: the target stopped answering, the time bound passed, or --max-failures was reached.
  const target: { lost?: TargetLost } = {};
  // --max-failures: the rules that failed so far; at the bound, nothing more is sent (as when the target is lost).
  const failing = new Set<RuleId>();
  const noteFailure = (rule: RuleId) => {
    const severity = catalog.find((r) => r.id === rule)?.severity ?? 'MUST';
    if (!selected(rule) || !failsRun({ outcome: 'fail', severity }, settings.strict)) return;
    failing.add(rule);
    if (settings.maxFailures !== undefined && failing.size >= settings.maxFailures) {
      target.lost ??= new TargetLost(`stopped after ${failing.size} failing rule${failing.size === 1 ? '' : 's'} (--max-failures ${settings.maxFailures})`);
    }
  };
  const counted = (asserter: Asserter): Asserter => ({
    ...asserter,
    fail: (rule, ...rest) => {
      asserter.fail(rule, ...rest);
      noteFailure(rule);
    },
  });
  const store = new StoreState();
  // Everything the run sends and receives passes the redaction boundary (core/boundary.ts).
  const client: Transport = options.transport ?? new RedactionBoundary(new HttpClient({
    baseUrl: options.baseUrl,
    timeoutMs: settings.timeoutMs,
    maxBodyBytes: settings.maxBodyBytes,
    connections: settings.concurrency,
    ...connection,
    ...(options.signal ? { signal: options.signal } : {}),
  }), redactor);
  const variants = authVariants(options.apiKey, settings.seed);
  const emit = redactingEmitter(options.onEvent, evidence);
  const prefix = options.namePrefix ?? namePrefixFor(settings.seed, options.apiKey);

  /** What each check's requests got (`503` or `no response (PC_ERR_TIMEOUT)`, with counts), and what the run's got. */
  const answers = new Map<string, Map<string, number>>();
  const answered = (check: string, x: SentExchange) => {
    const label = x.response ? String(x.response.status) : `no response (${x.error?.code ?? 'error'})`;
    for (const key of [check, RUN_ANSWERS]) {
      const counts = answers.get(key) ?? new Map<string, number>();
      counts.set(label, (counts.get(label) ?? 0) + 1);
      answers.set(key, counts);
    }
  };
  /** Time each check took, ms: active checks' runs, response checks' judging. */
  const checkTime = new Map<string, number>();
  const took = (check: string, since: number) => checkTime.set(check, (checkTime.get(check) ?? 0) + (performance.now() - since));
  const inspect = (x: SentExchange) => {
    for (const check of responseChecks) {
      const started = performance.now();
      try {
        check.inspect(x, { ...counted(recorder.asserter(check, x.meta.operation)), ...recorder.observer(check) });
      } catch (error) {
        recorder.checkError(check, `check crashed: ${(error as Error).message}`);
      }
      took(check.id, started);
    }
  };

  /** Checks cut short because the target was still rate-limiting after the wait budget. */
  const cutShort: string[] = [];
  // An interruption stops everything at once: pauses end early, requests in flight are aborted (HttpClient), and
  // every check that asks to send next is cut short.
  let interrupted: Interrupted | undefined;
  const interrupt = () => {
    interrupted ??= new Interrupted(options.signal?.reason === 'SIGTERM' ? 'SIGTERM' : 'SIGINT');
    target.lost = interrupted;
    silence.stop(interrupted);
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      options.signal?.addEventListener('abort', done, { once: true });
    });
  const pacing = new PacingGate({ maxWaitMs: settings.maxWaitMs, ...(settings.rateLimit ? { ratePerSecond: settings.rateLimit } : {}), sleep });
  // A request without response is judged only once the target is known to be alive (see suites/silence.ts).
  let inFlight = 0;
  const silence = new SilenceWatch({
    lostAfter: LOST_AFTER,
    inFlight: () => inFlight,
    onLost: (why) => (target.lost ??= new TargetLost(`the target stopped answering (${why})`)),
    probe: async () => {
      const { operation: _operation, ...probe } = listPets({ limit: 1 });
      let why: string | undefined;
      try {
        await pacing.beforeSend();
        const x = (await client.send({ ...probe, headers: { authorization: `Bearer ${options.apiKey}` } })) as SentExchange;
        x.meta = { operation: 'listPets', auth: 'valid', check: 'probe' };
        // Recorded like every exchange (certify's transcript), never judged.
        options.onExchange?.(x);
        why = x.response ? undefined : (x.error?.message ?? 'no response');
      } catch (error) {
        why = (error as Error).message;
      }
      silence.probed(why);
    },
  });
  if (options.signal?.aborted) interrupt();
  options.signal?.addEventListener('abort', interrupt, { once: true });
  const send = async (check: string, request: SendOptions): Promise<SentExchange> => {
    if (target.lost) throw target.lost;
    const { operation, auth = 'valid', authorization, headers, ...rest } = request;
    const sentHeaders: Record<string, string> = { ...headers };
    if (auth === 'valid') sentHeaders.authorization = `Bearer ${options.apiKey}`;
    else if (auth !== 'none' && authorization !== undefined) sentHeaders.authorization = authorization;
    let x: SentExchange;
    let resent = false;
    for (let attempt = 0; ; attempt++) {
      await pacing.beforeSend();
      if (target.lost) throw target.lost;
      inFlight++;
      try {
        x = (await client.send({ ...rest, headers: sentHeaders })) as SentExchange;
      } finally {
        inFlight--;
      }
      // An exchange cut by the interruption says nothing about the target: it is neither recorded nor judged.
      if (interrupted) throw interrupted;
      x.meta = { operation, auth, check };
      answered(check, x);
      options.onExchange?.(x);
      if (options.exchangeEvents) emit({ type: 'exchange', check, seq: x.seq, line: evidence.redact(exchangeLine(x)) });
      // A connection closed under a request (a keep-alive race: the server closed an idle connection as the request
      // went out) is sent once more on a fresh one before it counts; a target that keeps doing it is still lost.
      if (!x.response && x.error?.code === 'PC_ERR_PROTOCOL' && !resent) {
        resent = true;
        attempt--;
        continue;
      }
      inspect(x);
      // Rate limits are not shown by the document: a 429 is waited out (its body is still judged as an Error), never failed.
      if (x.response?.status !== 429) break;
      const wait = retryAfterMs(x.response.headers['retry-after'], attempt);
      if (!pacing.pause(wait)) {
        recorder.observe('GAP-RATE-LIMITS', operation, `429 answered, asking for ${Math.round(wait / 1000)} s more than the wait budget left: not sent again`, x);
        throw new RateLimited(`still rate-limited (429) after waiting ${Math.round(pacing.waitedMs / 1000)} s of the ${Math.round(settings.maxWaitMs / 1000)} s wait budget`, x);
      }
      recorder.observe('GAP-RATE-LIMITS', operation, `429 answered; every request paused ${wait < 1000 ? `${wait} ms` : `${Math.round(wait / 1000)} s`} (Retry-After ${x.response.headers['retry-after'] === undefined ? 'absent' : 'honoured'}), then sent again`, x);
    }
    // The preflight decides alone: a target that does not answer it is not tested at all.
    if (check !== PREFLIGHT) await silence.completed(x.response ? undefined : (x.error?.message ?? 'no response'));
    return x;
  };
  const skippedPhases: ConformanceResult['skippedPhases'] = [];
  const loads: LoadResult[] = [];

  emit({ type: 'run-start', target: settings.target, seed: settings.seed, checks: checks.length });
  // The run's overall bound: past it nothing more is sent; what ran is kept, the rest is reported as not run.
  const bound = setTimeout(() => {
    target.lost ??= new TargetLost(`the run reached its time bound (${Math.round(settings.maxTimeMs / 1000)} s)`);
  }, settings.maxTimeMs);
  bound.unref();
  let abort: Summary['abort'];

  try {
    abort = await preflight((request) => send(PREFLIGHT, request)).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof PcError) return { code: error.code, message: error.message };
        // Interrupted during the preflight: nothing was tested; every check is "not run" below.
        if (error instanceof Interrupted) return undefined;
        throw error;
      },
    );
    if (abort) for (const check of responseChecks) recorder.checkSkipped(check, `not run: ${abort.message}`);
    // The active checks in plan order; their events are emitted in that order whatever ends first.
    const plan = checks.filter((c): c is ActiveCheck => c.kind === 'example' || c.kind === 'property');
    const events = new InPlanOrder<RunEvent>(plan.length, emit);
    await runPhases(PHASES, PHASE_AFTER, async (phase) => {
      const active = plan.filter((c) => c.phase === phase);
      if (active.length === 0) return;
      const stop = abort ?? target.lost;
      if (stop) {
        for (const check of active) {
          recorder.checkSkipped(check, `not run: ${stop.message}`);
          events.settle(plan.indexOf(check), []);
        }
        skippedPhases.push({ phase, reason: stop.message });
        return;
      }
      const phaseStart: RunEvent = { type: 'phase-start', phase, checks: active.length };
      await mapBounded(active, active.length, (check, i) => {
        const slot = plan.indexOf(check);
        const end = (event: RunEvent) => events.settle(slot, i === 0 ? [phaseStart, event] : [event]);
        return inCheck(checks.indexOf(check) + 1, async () => {
          if (target.lost) {
            recorder.checkSkipped(check, `not run: ${target.lost.message}`);
            return end({ type: 'check-end', phase, check: check.id, title: check.title, skipped: target.lost.message });
          }
          const runs = phase === 'setup' || (check.rules.length === 0 ? settings.only.length === 0 : check.rules.some(selected));
          if (!runs) {
            recorder.checkSkipped(check, 'not selected by --only/--skip');
            return end({ type: 'check-end', phase, check: check.id, title: check.title, skipped: 'not selected' });
          }
          const ctx = contextFor(check, { recorder, store, send, variants, settings: { ...settings, prefix }, counted, noteFailure });
          let error: string | undefined;
          const started = performance.now();
          try {
            await check.run(ctx);
          } catch (e) {
            if (e instanceof TargetLost) {
              recorder.checkSkipped(check, `cut short: ${e.message}`);
            } else if (e instanceof RateLimited) {
              cutShort.push(check.id);
              const asserter = recorder.asserter(check, check.operation);
              for (const rule of check.rules) if (selected(rule)) asserter.inconclusive(rule, `cut short: ${e.message}`, [e.exchange]);
            } else {
              error = `check crashed: ${(e as Error).message}`;
              recorder.checkError(check, error);
            }
          }
          took(check.id, started);
          end({ type: 'check-end', phase, check: check.id, title: check.title, ...(error ? { error } : {}) });
        });
      });
    });
    skippedPhases.sort((a, b) => PHASES.indexOf(a.phase as Phase) - PHASES.indexOf(b.phase as Phase));
    if (settings.profile) {
      const refusal = abort?.message ?? target.lost?.message ?? refuseLoad(recorder.results().rules);
      if (refusal) {
        for (const check of checks) if (check.kind === 'load') recorder.checkSkipped(check, `not run: ${refusal}`);
        skippedPhases.push({ phase: 'load', reason: `load not started: ${refusal}` });
      } else {
        try {
          loads.push(
            await runLoadProfile(settings.profile, settings.thresholds, {
              baseUrl: settings.target,
              apiKey: options.apiKey,
              prefix,
              seed: settings.seed,
              timeoutMs: settings.timeoutMs,
              connection,
              ...(options.signal ? { signal: options.signal } : {}),
              redactor,
              store,
              recorder,
              checks,
              send,
              emit,
            }),
          );
        } catch (error) {
          // Interrupted (or the target lost) while the profile created its animals: the profile did not run.
          if (!(error instanceof TargetLost)) throw error;
          for (const check of checks) if (check.kind === 'load') recorder.checkSkipped(check, `not run: ${error.message}`);
          skippedPhases.push({ phase: 'load', reason: `load not run: ${error.message}` });
        }
      }
    } else {
      skippedPhases.push({ phase: 'load', reason: 'load profile "none"' });
    }
  } finally {
    clearTimeout(bound);
    options.signal?.removeEventListener('abort', interrupt);
    await client.close();
  }

  const recorded = recorder.results();
  const { observations } = recorded;
  const timed = recorded.rules.map((rule) => ({
    ...rule,
    checks: rule.checks.map((c) => {
      const told = c.reason === NOTHING_JUDGED ? { ...c, reason: evidence.redact(unjudged(rule.id, c, answers)) } : c;
      return checkTime.has(c.id) ? { ...told, durationMs: Math.round(checkTime.get(c.id)! * 10) / 10 } : told;
    }),
  }));
  const { rules, waivers } = applyWaivers(timed, options.waivers ?? [], options.now ?? new Date());
  const finishedAt = new Date();
  const result: ConformanceResult = {
    tool: { name: 'petstore-conformance', version: TOOL_VERSION },
    interfaceVersion: INTERFACE_VERSION,
    target: settings.target,
    seed: settings.seed,
    numRuns: settings.numRuns,
    startedAt: startedAt.toISOString(),
    finishedAt: finishedAt.toISOString(),
    durationMs: finishedAt.getTime() - startedAt.getTime(),
    options: { strict: settings.strict, timeoutMs: settings.timeoutMs, only: settings.only, skip: settings.skip, load: settings.load, insecure: settings.insecure, customCa: connection.ca !== undefined, connection: connectionRecord(connection) },
    namePrefix: prefix,
    summary: summarise(rules, settings.strict, client, checks.length, target.lost?.message ?? (cutShort.length > 0 ? `the target was still rate-limiting after the ${Math.round(settings.maxWaitMs / 1000)} s wait budget: ${cutShort.length} check(s) were cut short, their rules inconclusive` : undefined), abort, loads, interrupted?.signal),
    rules,
    observations,
    skippedPhases,
    load: loads,
    waivers,
  };
  redactResult(result, evidence);
  emit({ type: 'run-end', result });
  return result;
}

interface Resolved {
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
  rateLimit: number | undefined;
  maxTimeMs: number;
  maxFailures: number | undefined;
  concurrency: number;
  /** How every phase reaches the target: `options.connection` with `ca` and `insecure` applied. */
  connection: ConnectOptions;
}

/** Validates options, then applies defaults. Throws `UsageError` naming the offending option. */
function resolve(options: ConformanceOptions): Resolved {
  const url = parseBaseUrl(options.baseUrl);
  checkRunKey(options.apiKey, options.baseUrl);
  const ruleList = (name: string, ids: readonly string[] = []): RuleId[] => {
    const unknown = ids.filter((id) => !isRuleId(id));
    if (unknown.length > 0) throw new UsageError(`--${name}: unknown rule id ${unknown.join(', ')} (see petstore-conformance rules)`);
    return ids as RuleId[];
  };
  const integer = (name: string, value: number | undefined, fallback: number, min: number, max: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < min || value > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${value}`);
    return value;
  };
  const only = ruleList('only', options.only);
  const skip = ruleList('skip', options.skip);
  const mustLeft = rules.filter((r) => r.severity === 'MUST' && (only.length === 0 || only.includes(r.id)) && !skip.includes(r.id));
  if (mustLeft.length === 0) throw new UsageError('--only/--skip leave no MUST rule to run: such a run could not show conformance (select at least one MUST rule; see petstore-conformance rules)');
  const load = options.load ?? DEFAULTS.load;
  const profiles: Record<string, LoadProfile> = { ...builtinProfiles, ...options.loadProfiles };
  const profile = load === 'none' ? undefined : profiles[load];
  if (load !== 'none' && !profile) throw new UsageError(`--load: unknown profile "${load}" (known: ${['none', ...Object.keys(profiles)].join(', ')})`);
  const thresholds = profile ? validateProfile({ ...profile, name: load }) : [];
  const connection = connectionOf(options);
  return {
    target: targetOf(url),
    seed: integer('seed', options.seed, randomBytes(4).readInt32BE(0), -(2 ** 31), 2 ** 31 - 1),
    numRuns: integer('num-runs', options.numRuns, DEFAULTS.numRuns, 1, 10_000),
    strict: options.strict ?? DEFAULTS.strict,
    timeoutMs: integer('timeout', options.timeoutMs, DEFAULTS.timeoutMs, 1, 600_000),
    only,
    skip,
    load,
    profile: profile ? { ...profile, name: load } : undefined,
    thresholds,
    maxBodyBytes: integer('max-body-bytes', options.maxBodyBytes, DEFAULTS.maxBodyBytes, 1024, 256 * 1024 * 1024),
    propertyTimeLimitMs: options.propertyTimeLimitMs ?? DEFAULTS.propertyTimeLimitMs,
    insecure: connection.insecure === true,
    connection,
    maxWaitMs: integer('max-wait', options.maxWaitMs === undefined ? undefined : Math.round(options.maxWaitMs / 1000), DEFAULTS.maxWaitMs / 1000, 0, 86_400) * 1000,
    rateLimit: options.rateLimit === undefined ? undefined : positive('rate-limit', options.rateLimit),
    maxTimeMs: options.maxTimeMs === undefined ? DEFAULTS.maxTimeMs : positive('max-time', options.maxTimeMs),
    maxFailures: options.maxFailures === undefined ? undefined : integer('max-failures', options.maxFailures, 1, 1, rules.length),
    concurrency: integer('concurrency', options.concurrency, DEFAULTS.concurrency, 1, 256),
  };
}

/** The recorder's reason for a check that recorded nothing for a rule; the engine replaces it by what happened. */
const NOTHING_JUDGED = 'no request this check judges was made';

/** Key of the whole run's answers in the engine's tally. */
const RUN_ANSWERS = '\u0000run';

/** Answers by count, most frequent first: `503 ×40, 401 ×12, no response (PC_ERR_TIMEOUT) ×2`. */
function tally(counts: ReadonlyMap<string, number> | undefined, most = 6): string {
  const sorted = [...(counts ?? [])].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const shown = sorted.slice(0, most).map(([label, n]) => `${label} ×${n}`);
  return `${shown.join(', ')}${sorted.length > most ? `, ${sorted.length - most} other kinds` : ''}`;
}

/**
 * Why a check judged nothing for a rule, in terms of what happened: what its
 * own requests got (an active check), or what every response of the run was (a
 * response check judges the responses other checks get).
 */
function unjudged(rule: RuleId, check: { id: string; kind: string }, answers: ReadonlyMap<string, ReadonlyMap<string, number>>): string {
  const count = (counts: ReadonlyMap<string, number> | undefined) => [...(counts ?? new Map<string, number>()).values()].reduce((a, b) => a + b, 0);
  if (check.kind === 'response') {
    const run = answers.get(RUN_ANSWERS);
    return count(run) === 0 ? `no response came back in the whole run, so there was nothing for this check to judge for ${rule}` : `none of the run's ${count(run)} answers was one this check judges for ${rule}: they were ${tally(run)}`;
  }
  const own = answers.get(check.id);
  if (count(own) === 0) return `this check sent no request that could show ${rule} (what it needed from earlier phases was not there)`;
  return `this check sent ${count(own)} request${count(own) === 1 ? '' : 's'}, answered ${tally(own)}: none of the answers was one it could judge ${rule} on`;
}

/**
 * An exchange in one line for --verbose: sequence number, operation, method,
 * URL, and the status with content type, size and time, or why there was no
 * response; not yet redacted (the engine redacts it before emitting).
 */
export function exchangeLine(x: SentExchange): string {
  const auth = x.meta.auth === 'valid' ? '' : ` [auth ${x.meta.auth}]`;
  const sent = x.request.body ? ` (${x.request.body.byteLength} B)` : '';
  const answer = x.response
    ? `${x.response.status}${x.response.headers['content-type'] ? ` ${x.response.headers['content-type']}` : ''} ${x.response.body.byteLength}${x.response.truncated ? '+' : ''} B`
    : `no response: ${x.error?.message ?? 'unknown'}`;
  return `#${x.seq} ${x.meta.check} ${x.request.method} ${x.request.url}${sent}${auth} → ${answer} in ${x.durationMs.toFixed(1)} ms`;
}

/** The run's one connection description: `options.connection`, checked, with `ca` and `insecure` applied. */
function connectionOf(options: ConformanceOptions): ConnectOptions {
  const connection: ConnectOptions = { ...options.connection, ...(options.ca === undefined ? {} : { ca: options.ca }), ...(options.insecure === undefined ? {} : { insecure: options.insecure }) };
  try {
    return checkConnectOptions(connection);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** A positive finite number, or a `UsageError` naming the option. */
function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`--${name} must be a positive number, got ${value}`);
  return value;
}

/**
 * One request before anything else: the target must answer HTTP, and accept the
 * key. Otherwise every check would only repeat the same problem: the run stops,
 * and the result says why (`summary.abort`).
 */
async function preflight(send: (request: SendOptions) => Promise<SentExchange>): Promise<void> {
  const x = await send(listPets({ limit: 1 }));
  if (x.error) throw x.error;
  if (x.response?.status === 401) {
    throw new PreflightError('PC_ERR_KEY_REJECTED', `the target answered 401 to GET /pets with the key: check --api-key (or PETSTORE_API_KEY) and --base-url`);
  }
  // Every path is relative to {base_url}, which "already ends in the version segment /v1": a 404 for GET /pets means the base URL misses the interface.
  if (x.response?.status === 404 || x.response?.status === 405) {
    const base = x.request.url.slice(0, -'/pets?limit=1'.length);
    const hint = /\/v\d+$/.test(base) ? 'check --base-url' : `did you mean ${base}/v1?`;
    throw new PreflightError('PC_ERR_NOT_AN_API', `the target answered ${x.response.status} to GET ${base}/pets with the key, so no Animal Store Service is at this base URL: ${hint}`);
  }
}

/** Rules by severity and outcome. */
function countOutcomes(rules: ConformanceResult['rules']): Summary['counts'] {
  const empty = (): Record<RuleOutcome, number> => ({ pass: 0, fail: 0, inconclusive: 0, error: 0, skip: 0, waived: 0 });
  const counts = { MUST: empty(), SHOULD: empty() };
  for (const rule of rules) counts[rule.severity][rule.outcome]++;
  return counts;
}

/**
 * Applies waivers to rule results: a failing rule whose every failure a waiver
 * covers (the same operation, when the waiver names one), on or before its
 * expiry day, becomes `waived`. Expired waivers leave the failure standing;
 * waivers that match no failure are stale.
 */
export function applyWaivers(rules: ConformanceResult['rules'], waivers: readonly Waiver[], now: Date): { rules: ConformanceResult['rules']; waivers: WaiverResult[] } {
  const today = now.toISOString().slice(0, 10);
  const results: WaiverResult[] = [];
  const waived = new Set<string>();
  for (const waiver of waivers) {
    const rule = rules.find((r) => r.id === waiver.rule);
    const failing = rule?.outcome === 'fail' ? rule.checks.flatMap((c) => c.findings).filter((f) => f.outcome === 'fail') : [];
    const onOperation = waiver.operation === undefined ? failing : failing.filter((f) => f.operation === waiver.operation);
    let status: WaiverResult['status'];
    let note: string;
    if (onOperation.length === 0) [status, note] = ['stale', `${waiver.rule}${waiver.operation ? ` on ${waiver.operation}` : ''} does not fail: the waiver matches nothing and can go`];
    else if (waiver.expires < today) [status, note] = ['expired', `expired on ${waiver.expires}: the failure counts again`];
    else if (onOperation.length < failing.length) [status, note] = ['partial', `${waiver.rule} also fails on ${[...new Set(failing.filter((f) => f.operation !== waiver.operation).map((f) => f.operation))].join(', ')}: not waived`];
    else {
      [status, note] = ['applied', `failure waived until ${waiver.expires}`];
      waived.add(waiver.rule);
    }
    results.push({ ...waiver, status, note });
  }
  return { rules: rules.map((r) => (waived.has(r.id) ? { ...r, outcome: 'waived' } : r)), waivers: results };
}

/**
 * Load is not started against a target that does not authenticate as the
 * document requires: the key refused, or no key needed.
 */
function refuseLoad(rules: ConformanceResult['rules']): string | undefined {
  const failed = rules.filter((r) => (r.id === 'AUTH-VALID-KEY' || r.id === 'AUTH-REQUIRED') && r.outcome === 'fail').map((r) => r.id);
  return failed.length > 0 ? `the target does not authenticate as the document requires (${failed.join(', ')} failed)` : undefined;
}

/**
 * The name prefix of a run's animals, from its seed alone (a seed fully
 * determines the requests): `pctest-` and four hex digits, or another stem when
 * the key would occur in it, so redacting the key never rewrites what the suite sent.
 */
export function namePrefixFor(seed: number, apiKey: string): string {
  for (let salt = 0; salt < 64; salt++) {
    const hex = (checkSeed(seed, `name-prefix ${salt}`) >>> 0).toString(16).padStart(8, '0').slice(0, 4);
    const stem = ['pctest-', 'pc-', 'petconf-', 'suite-'][salt % 4]!;
    const prefix = `${stem}${hex} `;
    if (!prefix.toLowerCase().includes(apiKey.toLowerCase())) return prefix;
  }
  throw new UsageError('the API key is so short that it occurs in every name the suite could give its animals; use a real key');
}

/** A 32-bit seed for one check, from the run seed and the check id: filtering checks does not change what another generates. */
export function checkSeed(runSeed: number, checkId: string): number {
  let hash = 0x811c9dc5 ^ runSeed;
  for (const ch of checkId) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  return hash | 0;
}

interface ContextDeps {
  recorder: Recorder;
  /** The asserter with failures counted for --max-failures. */
  counted: (asserter: Asserter) => Asserter;
  noteFailure: (rule: RuleId) => void;
  store: StoreState;
  send: (check: string, request: SendOptions) => Promise<SentExchange>;
  variants: CheckContext['authVariants'];
  settings: Resolved & { prefix: string };
}

function contextFor(check: ActiveCheck, deps: ContextDeps): CheckContext {
  const { recorder, store, settings } = deps;
  const asserter = deps.counted(recorder.asserter(check, check.operation));
  // While a counterexample is replayed, what it sends is kept as evidence.
  let recording: SentExchange[] | undefined;
  const send = async (request: SendOptions) => {
    const x = await deps.send(check.id, request);
    recording?.push(x);
    return x;
  };
  const observer = recorder.observer(check);
  return {
    ...asserter,
    ...observer,
    settings: { seed: checkSeed(settings.seed, check.id), numRuns: settings.numRuns, prefix: settings.prefix, timeoutMs: settings.timeoutMs },
    store,
    authVariants: deps.variants,
    send,
    sendAll: (requests) => mapBounded(requests, settings.concurrency, send),
    parallel: (items, fn) => mapBounded(items, settings.concurrency, (item) => fn(item)),
    property: (arbitrary, body, options) =>
      runProperty(
        { arbitrary, body, ...(options?.examples ? { examples: options.examples } : {}), seed: checkSeed(settings.seed, check.id), numRuns: settings.numRuns, timeLimitMs: settings.propertyTimeLimitMs, concurrency: settings.concurrency },
        {
          check,
          operation: check.operation,
          asserter,
          observer,
          record: (finding, counterexample) => recorder.record(check, check.operation, finding, counterexample),
          noteFailure: deps.noteFailure,
          async recording(into, during) {
            recording = into;
            try {
              return await during();
            } finally {
              recording = undefined;
            }
          },
        },
      ),
  };
}

function summarise(rules: ConformanceResult['rules'], strict: boolean, client: Transport, checks: number, stopped: string | undefined, abort: Summary['abort'], loads: readonly LoadResult[], interrupted: 'SIGINT' | 'SIGTERM' | undefined): Summary {
  const { verdict, reason } = decideVerdict({ rules, strict, ...(abort ? { abort } : {}), ...(stopped ? { stopped } : {}), loads, ...(interrupted ? { interrupted } : {}) });
  return { verdict, reason, strict, counts: countOutcomes(rules), requests: client.requestsSent, checks, ...(abort ? { abort } : {}), thresholds: thresholdsOutcome(loads), ...(interrupted ? { interrupted } : {}) };
}
