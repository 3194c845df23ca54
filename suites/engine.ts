/**
 * The conformance engine: runs the checks against a target in phases and
 * returns the result report.json holds. It emits events as it goes; it never
 * imports a reporter or the CLI. Its seams: options (options.ts), the target
 * session (session.ts), the plan (plan.ts, run by schedule.ts), the property
 * runner (property.ts), the load phase (load/), reasons as data (reasons.ts).
 */
import { PcError, PreflightError, PROXY_FAILED, UsageError } from '../core/errors.js';
import { connectionRecord } from '../core/connection.js';
import { type Exchange, HttpClient, stalledFor } from '../core/http.js';
import { isRedacted, type RedactedExchange, type RedactedTransport, RedactionBoundary } from '../core/boundary.js';
import { type Redactor, redactorFor } from '../core/redact.js';
import { TOOL_VERSION } from '../core/version.js';
import { type Names, naturalNames, prefixedNames } from '../generators/names.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import { type RuleId, rules as catalog } from '../spec/rules.js';
import { type ActiveCheck, type Asserter, type CheckContext, type CheckDefinition, type DifferentialCheck, type Phase, type ResponseCheck, type SendOptions, type SentExchange, StoreState } from './check.js';
import { DifferentialProbe, PROBE_NEEDS } from './probe.js';
import { authVariants, runRedactor, runSecrets } from './credentials.js';
import { EvidenceFactory, redactResult, redactingEmitter } from './evidence.js';
import type { ConformanceResult, LoadResult, RuleOutcome, RunEvent, Summary } from '../result/model.js';
import { decideVerdict, failsRun, thresholdsOutcome } from '../result/policy.js';
import { loadChecks, runLoadProfile } from './load/phase.js';
import { PROFILE_NAMES } from './load/profiles.js';
import { Recorder } from './recorder.js';
import { runProperty } from './property.js';
import { InPlanOrder, inCheck, mapBounded, runPhases } from './schedule.js';
import { builtinChecks } from './registry.js';
import { listPets } from './requests.js';
import { DEFAULTS } from './defaults.js';
import { type ConformanceOptions, type Resolved, resolve } from './options.js';
import type { FingerprintId } from '../core/fingerprints.js';
import { PHASES, PLAN } from './plan.js';
import { type AnswerCount, type SkipReason, type StopReason, skipText } from '../result/reasons.js';
import { Interrupted, NotJudged, PREFLIGHT, PROBE, RateLimited, TargetLost, TargetSession } from './session.js';
import { setTimeout as delay } from 'node:timers/promises';
import { applyWaivers } from './waivers.js';
import { withDiagnoses } from './diagnoses.js';

export type { RunEvent } from '../result/model.js';
export type { ConformanceOptions } from './options.js';
export { LOST_AFTER } from './session.js';
export { STORE_INFERRED_RULES } from './property.js';
export { PHASES, PLAN } from './plan.js';
export { applyWaivers } from './waivers.js';
export { DEFAULTS };

/** Gaps the engine itself observes, outside any check. */
export const ENGINE_GAPS = ['GAP-RATE-LIMITS'] as const;

/** Names `--load` takes without a config file. */
export const LOAD_PROFILES = PROFILE_NAMES;

/**
 * Runs every selected check against the target and returns the result. Throws
 * `PcError` for usage problems (bad options); a target that cannot be tested
 * (unreachable, key rejected) gives a result with `summary.abort` set.
 */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceResult> {
  const run = new Run(options);
  const { settings, session } = run;
  const startedAt = new Date();
  run.emit({ type: 'run-start', target: settings.target, seed: settings.seed, checks: run.checks.length });
  // The run's overall bound: past it nothing more is sent; what ran is kept, the rest is reported as not run.
  const bound = setTimeout(() => session.stop(new TargetLost({ code: 'time-bound', seconds: Math.round(settings.maxTimeMs / 1000) })), settings.maxTimeMs);
  bound.unref();
  let abort: Summary['abort'];
  try {
    // The differential probe's prelude comes before anything else: nothing suite-like has been seen yet.
    await run.prelude();
    abort = await preflight((request) => run.send(PREFLIGHT, request)).then(
      () => undefined,
      (error: unknown) => {
        if (error instanceof PcError) return { code: error.code, message: error.message };
        // Interrupted during the preflight: nothing was tested; every check is "not run" below.
        if (error instanceof Interrupted) return undefined;
        throw error;
      },
    );
    const aborted: StopReason | undefined = abort ? { code: 'preflight', error: abort } : undefined;
    if (aborted) for (const check of [...run.responseChecks, ...(run.differential ? [run.differential] : [])]) run.recorder.checkSkipped(check, { code: 'not-run', stop: aborted });
    await runFunctionalPhases(run, aborted);
    // The probe follows the functional phases only; the load phase has its own connections and pace.
    if (!aborted) run.probe?.finish();
    run.probe = undefined;
    await runLoadPhase(run, aborted);
  } finally {
    clearTimeout(bound);
    session.close();
    await run.client.close();
  }
  return run.result(startedAt, abort);
}

/**
 * One run's state and the services its phases share: the recorder, the
 * session every request goes through, the store the checks learn, what each
 * check's requests were answered and how long each check took.
 */
class Run {
  readonly settings: Resolved;
  readonly options: ConformanceOptions;
  readonly checks: readonly CheckDefinition[];
  readonly responseChecks: readonly ResponseCheck[];
  readonly redactor: Redactor;
  readonly evidence: EvidenceFactory;
  readonly recorder: Recorder;
  readonly client: RedactedTransport;
  /** The door for exchanges another sender made (the load phase's): core/boundary.ts `RedactionBoundary.admit`. */
  readonly admit: (exchange: Exchange) => RedactedExchange;
  readonly session: TargetSession;
  /** The differential probe's check, when the run's checks hold it (CLIENT-INDEPENDENT). */
  readonly differential: DifferentialCheck | undefined;
  /** The differential probe, while it follows the run: only when the run speaks as two fingerprints or more, during the functional phases. */
  probe: DifferentialProbe | undefined;
  readonly store = new StoreState();
  readonly variants: CheckContext['authVariants'];
  readonly emit: (event: RunEvent) => void;
  readonly names: Names;
  readonly skippedPhases: ConformanceResult['skippedPhases'] = [];
  readonly loads: LoadResult[] = [];
  /** Checks cut short because the target was still rate-limiting after the wait budget. */
  readonly cutShort: string[] = [];
  /** What each check's requests got (`503` or `no response (PC_ERR_TIMEOUT)`, with counts), and what the run's got. */
  readonly #answers = new Map<string, Map<string, number>>();
  /** Time each check took, ms: active checks' runs, response checks' judging. */
  readonly #checkTime = new Map<string, number>();
  /** --max-failures: the rules that failed so far; at the bound, nothing more is sent (as when the target is lost). */
  readonly #failing = new Set<RuleId>();

  constructor(options: ConformanceOptions) {
    this.options = options;
    const settings = (this.settings = resolve(options));
    const given = options.checks ?? builtinChecks;
    this.checks = [...given, ...(settings.profile ? loadChecks(settings.profile.name, given.filter((c): c is ResponseCheck => c.kind === 'response')) : [])];
    this.responseChecks = this.checks.filter((c): c is ResponseCheck => c.kind === 'response');
    // Secret headers (--secret-header) are redacted like the key, wherever evidence is built.
    this.redactor = runRedactor(runSecrets(options.apiKey, settings.connection));
    this.evidence = new EvidenceFactory(this.redactor, options.apiKey);
    this.recorder = new Recorder({ checks: this.checks, selected: (rule) => this.selected(rule), evidence: this.evidence, target: settings.target, nothingJudged: (rule, check) => this.#nothingJudged(rule, check) });
    // Everything the run sends and receives passes the redaction boundary (core/boundary.ts); a transcript's replay crossed it when it was recorded.
    const transport = options.transport;
    const boundary = new RedactionBoundary(
      transport ?? new HttpClient({ baseUrl: options.baseUrl, timeoutMs: settings.timeoutMs, maxBodyBytes: settings.maxBodyBytes, connections: settings.concurrency, ...settings.connection, ...(options.signal ? { signal: options.signal } : {}), ...(settings.userAgent === undefined ? {} : { userAgent: settings.userAgent }) }),
      this.redactor,
    );
    this.client = transport && isRedacted(transport) ? transport : boundary;
    // What the load phase's own connections receive comes in through the same door.
    this.admit = (exchange) => boundary.admit(exchange);
    this.variants = authVariants(options.apiKey, settings.seed);
    this.emit = redactingEmitter(options.onEvent, this.evidence);
    this.names = options.names === 'natural' ? naturalNamesFor(settings.seed, options.apiKey) : prefixedNames(options.namePrefix ?? namePrefixFor(settings.seed, options.apiKey));
    // How every request is sent: credentials, 429 waits, resends, silence, stopping (suites/session.ts).
    this.session = new TargetSession({
      client: this.client,
      apiKey: options.apiKey,
      maxWaitMs: settings.maxWaitMs,
      fingerprints: settings.fingerprints,
      seed: settings.seed,
      // Pacing is for a target: a recorded transcript (verify's replay) or a caller's transport is not paced.
      jitterMs: transport ? 0 : settings.jitterMs,
      ...(settings.rateLimit ? { rateLimit: settings.rateLimit } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onExchange: (x) => {
        options.onExchange?.(x);
        // The session's probes are recorded (certify's transcript), never counted or judged.
        if (x.meta.check === PROBE) return;
        this.#answered(x.meta.check, x);
        if (options.exchangeEvents) this.emit({ type: 'exchange', check: x.meta.check, seq: x.seq, line: this.evidence.redact(exchangeLine(x)) });
      },
      inspect: (x) => this.#inspect(x),
      observeRateLimit: (operation, summary, x) => this.recorder.observe('GAP-RATE-LIMITS', operation, summary, x),
    });
    this.differential = this.checks.find((c): c is DifferentialCheck => c.kind === 'differential');
    this.probe = this.#probeOf(this.differential);
  }

  /**
   * The differential probe of a run that speaks as two client fingerprints or
   * more; with fewer, its rules are not asked (skipped, never undecided).
   */
  #probeOf(check: DifferentialCheck | undefined): DifferentialProbe | undefined {
    if (!check || !check.rules.some((rule) => this.selected(rule))) return undefined;
    const { settings, options } = this;
    if (settings.fingerprints.length < 2) {
      this.recorder.checkSkipped(check, { code: 'not-asked', needs: PROBE_NEEDS });
      return undefined;
    }
    const signal = options.signal;
    return new DifferentialProbe({
      fingerprints: settings.fingerprints,
      seed: settings.seed,
      names: this.names,
      store: this.store,
      send: (request, how) => this.session.send(check.id, request, how),
      asserter: (operation) => this.counted(this.recorder.asserter(check, operation)),
      // A recorded transcript replayed sends nothing real: no pause.
      ...(options.transport ? {} : { sleep: (ms: number) => delay(ms, undefined, signal ? { signal } : {}).catch(() => undefined) }),
      mayCreate: (id) => {
        const sender = this.checks.find((c) => c.id === id);
        return sender !== undefined && 'phase' in sender && (sender.phase === 'createPet' || sender.phase === 'getPet');
      },
    });
  }

  /** The probe's prelude, if the run has a probe; a stop during it is the preflight's to tell. */
  async prelude(): Promise<void> {
    try {
      await this.probe?.prelude();
    } catch (error) {
      if (!(error instanceof TargetLost || error instanceof RateLimited || error instanceof NotJudged)) throw error;
    }
  }

  selected(rule: RuleId): boolean {
    return (this.settings.only.length === 0 || this.settings.only.includes(rule)) && !this.settings.skip.includes(rule);
  }

  /** Sends a request of the run; the differential probe, while it follows the run, sees its answer (and may send it again as other clients) before the check does. */
  async send(check: string, request: SendOptions): Promise<SentExchange> {
    const x = await this.session.send(check, request);
    await this.probe?.after(check, request, x);
    return x;
  }

  /** Counts a failure of `rule` towards --max-failures. */
  noteFailure(rule: RuleId): void {
    const severity = catalog.find((r) => r.id === rule)?.severity ?? 'MUST';
    if (!this.selected(rule) || !failsRun({ outcome: 'fail', severity }, this.settings.strict)) return;
    this.#failing.add(rule);
    const limit = this.settings.maxFailures;
    if (limit !== undefined && this.#failing.size >= limit) this.session.stop(new TargetLost({ code: 'max-failures', failing: this.#failing.size, limit }));
  }

  /** `asserter` with its failures counted towards --max-failures. */
  counted(asserter: Asserter): Asserter {
    return {
      ...asserter,
      fail: (rule, ...rest) => {
        asserter.fail(rule, ...rest);
        this.noteFailure(rule);
      },
    };
  }

  took(check: string, since: number): void {
    this.#checkTime.set(check, (this.#checkTime.get(check) ?? 0) + (performance.now() - since));
  }

  /** Marks a phase as not run, with why. */
  skipPhase(phase: Phase | 'load', why: SkipReason): void {
    this.skippedPhases.push({ phase, why, reason: skipText(why) });
  }

  /** Each response passes every response check as it arrives. */
  #inspect(x: SentExchange): void {
    for (const check of this.responseChecks) {
      const started = performance.now();
      try {
        check.inspect(x, { ...this.counted(this.recorder.asserter(check, x.meta.operation)), ...this.recorder.observer(check) });
      } catch (error) {
        this.recorder.checkError(check, (error as Error).message);
      }
      this.took(check.id, started);
    }
  }

  #answered(check: string, x: SentExchange): void {
    // A deadline that came due while the suite's own loop was stalled says nothing of the target: labelled as the suite's.
    const label = x.response ? String(x.response.status) : stalledFor(x.error) !== undefined ? STALLED_LABEL : PROXY_FAILED.test(x.error?.message ?? '') ? PROXY_LABEL : `no response (${x.error?.code ?? 'error'})`;
    for (const key of [check, RUN_ANSWERS]) {
      const counts = this.#answers.get(key) ?? new Map<string, number>();
      counts.set(label, (counts.get(label) ?? 0) + 1);
      this.#answers.set(key, counts);
    }
  }

  /**
   * Why a check judged nothing for a rule, in terms of what happened: what its
   * own requests got (an active check), or what every response of the run was (a
   * response check judges the responses other checks get).
   */
  #nothingJudged(rule: RuleId, check: CheckDefinition): SkipReason {
    const scope = check.kind === 'response' ? 'run' : 'check';
    const counts = this.#answers.get(scope === 'run' ? RUN_ANSWERS : check.id) ?? new Map<string, number>();
    const answers: AnswerCount[] = [...counts].map(([label, count]) => ({ label, count }));
    return { code: 'nothing-judged', rule, scope, answers };
  }

  /** The result: rule results with times and waivers applied, the summary, everything redacted once more. */
  result(startedAt: Date, abort: Summary['abort']): ConformanceResult {
    const { settings, session, options } = this;
    const recorded = this.recorder.results();
    const timed = recorded.rules.map((rule) => ({
      ...rule,
      checks: rule.checks.map((c) => (this.#checkTime.has(c.id) ? { ...c, durationMs: Math.round(this.#checkTime.get(c.id)! * 10) / 10 } : c)),
    }));
    const { rules, waivers } = applyWaivers(withDiagnoses(timed), options.waivers ?? [], options.now ?? new Date());
    const stopped = session.stopped?.message ?? (this.cutShort.length > 0 ? `the target was still rate-limiting after the ${Math.round(settings.maxWaitMs / 1000)} s wait budget: ${this.cutShort.length} check(s) were cut short, their rules inconclusive` : undefined);
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
      options: { strict: settings.strict, timeoutMs: settings.timeoutMs, only: settings.only, skip: settings.skip, load: settings.load, insecure: settings.insecure, customCa: settings.connection.ca !== undefined, connection: connectionRecord(settings.connection), ...clientRecord(settings), ...(settings.sources ? { sources: settings.sources } : {}), ...(this.names.natural ? { names: 'natural' as const } : {}) },
      // Natural names have no prefix: the field is left out rather than given one no name starts with.
      ...(this.names.natural ? {} : { namePrefix: this.names.prefix }),
      summary: summarise(rules, settings.strict, this.client, this.checks.length, stopped, abort, this.loads, session.interrupted?.signal, waivers.filter((w) => w.status !== 'expired').map((w) => w.rule)),
      rules,
      observations: recorded.observations,
      skippedPhases: [...this.skippedPhases].sort((a, b) => phaseOrder(a.phase) - phaseOrder(b.phase)),
      load: this.loads,
      waivers,
    };
    redactResult(result, this.evidence);
    this.emit({ type: 'run-end', result });
    return result;
  }
}

/** Plan order, the load phase last. */
function phaseOrder(phase: Phase | 'load'): number {
  return phase === 'load' ? PHASES.length : PHASES.indexOf(phase);
}

/**
 * The functional phases, as the plan's graph: within a phase the checks run
 * concurrently, and their events go out in plan order whatever ends first.
 */
async function runFunctionalPhases(run: Run, aborted: StopReason | undefined): Promise<void> {
  const { recorder, session, settings } = run;
  const plan = run.checks.filter((c): c is ActiveCheck => c.kind === 'example' || c.kind === 'property');
  const events = new InPlanOrder<RunEvent>(plan.length, run.emit);
  await runPhases(PLAN, async (phase) => {
    const active = plan.filter((c) => c.phase === phase);
    if (active.length === 0) return;
    const stop = aborted ?? session.stopped?.reason;
    if (stop) {
      for (const check of active) {
        recorder.checkSkipped(check, { code: 'not-run', stop });
        events.settle(plan.indexOf(check), []);
      }
      run.skipPhase(phase, { code: 'not-run', stop });
      return;
    }
    const phaseStart: RunEvent = { type: 'phase-start', phase, checks: active.length };
    await mapBounded(active, active.length, (check, i) => {
      const slot = plan.indexOf(check);
      const end = (event: RunEvent) => events.settle(slot, i === 0 ? [phaseStart, event] : [event]);
      const skip = (why: SkipReason) => {
        recorder.checkSkipped(check, why);
        return end({ type: 'check-end', phase, check: check.id, title: check.title, skipped: skipText(why) });
      };
      return inCheck(slot + 1, async () => {
        if (session.stopped) return skip({ code: 'not-run', stop: session.stopped.reason });
        const runs = phase === 'setup' || (check.rules.length === 0 ? settings.only.length === 0 : check.rules.some((rule) => run.selected(rule)));
        if (!runs) return skip({ code: 'not-selected' });
        let error: string | undefined;
        const started = performance.now();
        try {
          await check.run(contextFor(check, run));
        } catch (e) {
          if (e instanceof TargetLost) {
            recorder.checkSkipped(check, { code: 'cut-short', stop: e.reason });
          } else if (e instanceof RateLimited || e instanceof NotJudged) {
            // Still rate-limited, a POST the suite's own stalled loop left unread, a request the proxy did not carry:
            // what depended on it is unknown.
            if (e instanceof RateLimited) run.cutShort.push(check.id);
            const asserter = recorder.asserter(check, check.operation);
            for (const rule of check.rules) if (run.selected(rule)) asserter.inconclusive(rule, { code: 'CUT_SHORT', args: { reason: e.message } }, [e.exchange]);
          } else {
            recorder.checkError(check, (e as Error).message);
            error = skipText({ code: 'crashed', detail: (e as Error).message });
          }
        }
        run.took(check.id, started);
        end({ type: 'check-end', phase, check: check.id, title: check.title, ...(error ? { error } : {}) });
      });
    });
  });
}

/**
 * The load profile, after the functional phases: not started once the run
 * stopped, nor against a target that does not authenticate as the document
 * requires (the key refused, or no key needed).
 */
async function runLoadPhase(run: Run, aborted: StopReason | undefined): Promise<void> {
  const { settings, recorder, options } = run;
  const skipLoad = (why: SkipReason) => {
    for (const check of run.checks) if (check.kind === 'load') recorder.checkSkipped(check, why);
    run.skipPhase('load', why);
  };
  if (!settings.profile) return run.skipPhase('load', { code: 'load-none' });
  const stop = aborted ?? run.session.stopped?.reason;
  if (stop) return skipLoad({ code: 'load-not-started', stop });
  const failed = recorder.results().rules.filter((r) => (r.id === 'AUTH-VALID-KEY' || r.id === 'AUTH-REQUIRED') && r.outcome === 'fail').map((r) => r.id);
  if (failed.length > 0) return skipLoad({ code: 'load-refused', failed });
  try {
    run.loads.push(
      await runLoadProfile(settings.profile, settings.thresholds, {
        baseUrl: settings.target,
        apiKey: options.apiKey,
        names: run.names,
        seed: settings.seed,
        timeoutMs: settings.timeoutMs,
        maxBodyBytes: settings.maxBodyBytes,
        connection: settings.connection,
        fingerprints: settings.fingerprints,
        ...(options.signal ? { signal: options.signal } : {}),
        admit: run.admit,
        store: run.store,
        recorder,
        checks: run.checks,
        send: (check, request) => run.send(check, request),
        emit: run.emit,
      }),
    );
  } catch (error) {
    // Interrupted (or the target lost) while the profile created its animals: the profile did not run.
    if (!(error instanceof TargetLost)) throw error;
    skipLoad({ code: 'load-not-run', stop: error.reason });
  }
}

/** What report.json records of the clients the run spoke as: the fingerprints, or a User-Agent of the tool's shape given, and the pacing. */
function clientRecord(settings: Resolved): { fingerprints?: FingerprintId[]; userAgent?: string; jitterMs?: number } {
  return {
    ...(settings.fingerprints.length > 0 ? { fingerprints: settings.fingerprints } : {}),
    ...(settings.userAgent === undefined ? {} : { userAgent: settings.userAgent }),
    ...(settings.jitterMs > 0 ? { jitterMs: settings.jitterMs } : {}),
  };
}

/** The label of an exchange whose deadline came due while the suite's own event loop was stalled, in a check's tally of answers. */
const STALLED_LABEL = "not read in time (the suite's own event loop stalled)";

/** The label of an exchange the proxy did not carry to the target (core/tunnel.ts), in a check's tally of answers. */
const PROXY_LABEL = 'not carried (the proxy failed)';

/** Key of the whole run's answers in the engine's tally. */
const RUN_ANSWERS = '\u0000run';

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

/**
 * One request before anything else: the target must answer HTTP, and accept the
 * key. Otherwise every check would only repeat the same problem: the run stops,
 * and the result says why (`summary.abort`).
 */
async function preflight(send: (request: SendOptions) => Promise<SentExchange>): Promise<void> {
  const x = await send(listPets({ limit: 1 }));
  if (x.error) throw x.error;
  if (x.response?.status === 401) {
    throw new PreflightError('PC_ERR_KEY_REJECTED', 'the target answered 401 to GET /pets with the key: check the API key and the base URL');
  }
  // Every path is relative to {base_url}, which "already ends in the version segment /v1": a 404 for GET /pets means the base URL misses the interface.
  if (x.response?.status === 404 || x.response?.status === 405) {
    const base = x.request.url.slice(0, -'/pets?limit=1'.length);
    const hint = /\/v\d+$/.test(base) ? 'check the base URL' : `did you mean ${base}/v1?`;
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
 * The name prefix of a run's animals, from its seed alone (a seed fully
 * determines the requests): `pctest-` and four hex digits, or another stem when
 * the key would occur in it, so redacting the key never rewrites what the suite sent.
 */
export function namePrefixFor(seed: number, apiKey: string): string {
  // Every form the redactor finds (case-folded, pieces): a prefix holding one would be withheld from every request.
  const holdsKey = redactorFor(apiKey);
  for (let salt = 0; salt < 64; salt++) {
    const hex = (checkSeed(seed, `name-prefix ${salt}`) >>> 0).toString(16).padStart(8, '0').slice(0, 4);
    const stem = ['pctest-', 'pc-', 'petconf-', 'suite-'][salt % 4]!;
    const prefix = `${stem}${hex} `;
    if (!prefix.toLowerCase().includes(apiKey.toLowerCase()) && !holdsKey.leaks(prefix)) return prefix;
  }
  throw new UsageError('the API key is so short that it occurs in every name the suite could give its animals; use a real key');
}

/**
 * The names of a certification run (generators/names.ts `naturalNames`), from
 * its seed alone; a name that would hold a form of the key is drawn again, as
 * {@link namePrefixFor} does, so redacting the key never rewrites what the suite sent.
 */
export function naturalNamesFor(seed: number, apiKey: string): Names {
  const holdsKey = redactorFor(apiKey);
  return naturalNames({ seedOf: (purpose) => checkSeed(seed, `name ${purpose}`), accept: (name) => !name.toLowerCase().includes(apiKey.toLowerCase()) && !holdsKey.leaks(name) });
}

/** A 32-bit seed for one check, from the run seed and the check id: filtering checks does not change what another generates. */
export function checkSeed(runSeed: number, checkId: string): number {
  let hash = 0x811c9dc5 ^ runSeed;
  for (const ch of checkId) hash = Math.imul(hash ^ ch.charCodeAt(0), 0x01000193);
  return hash | 0;
}

/** What a check sees of the run: its asserter (failures counted), its seed, the store, and a send that keeps a replay's exchanges. */
function contextFor(check: ActiveCheck, run: Run): CheckContext {
  const { recorder, store, settings } = run;
  const asserter = run.counted(recorder.asserter(check, check.operation));
  // While a counterexample is replayed, what it sends is kept as evidence.
  let recording: SentExchange[] | undefined;
  const send = async (request: SendOptions) => {
    const x = await run.send(check.id, request);
    recording?.push(x);
    return x;
  };
  const observer = recorder.observer(check);
  return {
    ...asserter,
    ...observer,
    settings: { seed: checkSeed(settings.seed, check.id), numRuns: settings.numRuns, prefix: run.names.prefix, names: run.names, timeoutMs: settings.timeoutMs, visibilityWindowMs: settings.visibilityWindowMs },
    store,
    authVariants: run.variants,
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
          noteFailure: (rule) => run.noteFailure(rule),
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

function summarise(rules: ConformanceResult['rules'], strict: boolean, client: RedactedTransport, checks: number, stopped: string | undefined, abort: Summary['abort'], loads: readonly LoadResult[], interrupted: 'SIGINT' | 'SIGTERM' | undefined, waived: readonly RuleId[]): Summary {
  const { verdict, reason, undecided } = decideVerdict({ rules, strict, ...(abort ? { abort } : {}), ...(stopped ? { stopped } : {}), loads, ...(interrupted ? { interrupted } : {}), waived });
  return { verdict, reason, strict, counts: countOutcomes(rules), requests: client.requestsSent, checks, ...(abort ? { abort } : {}), thresholds: thresholdsOutcome(loads), ...(interrupted ? { interrupted } : {}), ...(undecided.length ? { undecided } : {}) };
}
