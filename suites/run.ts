/**
 * One run of the engine (suites/engine.ts): its state and the services its
 * phases share. The engine resolves the options and drives the phases
 * (suites/functional.ts, the load phase); the result is built by
 * suites/result-builder.ts.
 */
import { PROXY_FAILED } from '../core/errors.js';
import { type Exchange, HttpClient, stalledFor } from '../core/http.js';
import { isRedacted, type RedactedExchange, type RedactedTransport, RedactionBoundary } from '../core/boundary.js';
import type { Redactor } from '../core/redact.js';
import { type Names, prefixedNames } from '../generators/names.js';
import { type RuleId, rules as catalog } from '../spec/rules.js';
import {
  type Asserter,
  type CheckContext,
  type CheckDefinition,
  type DifferentialCheck,
  type Observer,
  type Phase,
  type ResponseCheck,
  type SendOptions,
  type SentExchange,
  StoreState,
} from './check.js';
import { DifferentialProbe, PROBE_NEEDS } from './probe.js';
import { authVariants, runRedactor, runSecrets } from './credentials.js';
import { EvidenceFactory, redactResult, redactingEmitter } from './evidence.js';
import type { ConformanceResult, LoadResult, OperationId, RunEvent, Summary } from '../result/model.js';
import { failsRun } from '../result/policy.js';
import { loadChecks } from './load/phase.js';
import { Recorder } from './recorder.js';
import { builtinChecks } from './registry.js';
import type { ConformanceOptions, Resolved } from './options.js';
import { type AnswerCount, type SkipReason, skipText } from '../result/reasons.js';
import { NotJudged, PROBE, RateLimited, TargetLost, TargetSession } from './session.js';
import { setTimeout as delay } from 'node:timers/promises';
import { buildResult } from './result-builder.js';
import { namePrefixFor, naturalNamesFor } from './seeds.js';
import { exchangeLine } from './exchange-line.js';
import { type RunClients, runClients } from '../core/clients.js';
import { type ConcurrencyRecord, fixedConcurrency, MAX_WIDENED, Widening } from './session/in-flight.js';

/**
 * One run's state and the services its phases share: the recorder, the
 * session every request goes through, the store the checks learn, what each
 * check's requests were answered and how long each check took.
 */
export class Run {
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
  /** Each client as the run has it: its version, its application's habits (core/clients.ts). */
  readonly clients: RunClients;
  readonly skippedPhases: ConformanceResult['skippedPhases'] = [];
  readonly loads: LoadResult[] = [];
  /** Requests a check starts at once at most (`sendAll`, `parallel`, property cases): the widest the in-flight limit may reach, so what a check starts never depends on how wide the run was then; the session holds the limit. */
  readonly width: number;
  /** Checks cut short because the target was still rate-limiting after the wait budget. */
  readonly cutShort: string[] = [];
  /** What each check's requests got (`503` or `no response (PC_ERR_TIMEOUT)`, with counts), and what the run's got. */
  readonly #answers = new Map<string, Map<string, number>>();
  /** Time each check took, ms: active checks' runs, response checks' judging. */
  readonly #checkTime = new Map<string, number>();
  /** When each active check started, ms since the epoch (with its time, its interval in the run). */
  readonly #checkStart = new Map<string, number>();
  /** Rules whose first failure was announced (`rule-failed`). */
  readonly #told = new Set<RuleId>();
  /** The in-flight limit of a run that may widen, following each exchange after the preflight (suites/session/in-flight.ts). */
  readonly #widening: Widening | undefined;
  readonly #judges = new Map<string, Asserter & Observer>();
  /** Whether the preflight answered: exchanges before it (the probe's paced prelude) tell nothing of the round trip. */
  #following = false;
  /** The run's own client (no caller's transport): connections of the tool's own shape are opened ahead through it. */
  readonly #http: HttpClient | undefined;
  #openedAhead = false;
  /** --max-failures: the rules that failed so far; at the bound, nothing more is sent (as when the target is lost). */
  readonly #failing = new Set<RuleId>();

  /** `settings` are `options` resolved (suites/options.ts), once, by the engine. */
  constructor(options: ConformanceOptions, settings: Resolved) {
    this.options = options;
    this.settings = settings;
    const given = options.checks ?? builtinChecks;
    this.checks = [
      ...given,
      ...(settings.profile
        ? loadChecks(
            settings.profile.name,
            given.filter((c): c is ResponseCheck => c.kind === 'response'),
          )
        : []),
    ];
    this.responseChecks = this.checks.filter((c): c is ResponseCheck => c.kind === 'response');
    // Secret headers (--secret-header) are redacted like the key, wherever evidence is built.
    this.redactor = runRedactor(runSecrets(options.apiKey, settings.connection));
    this.evidence = new EvidenceFactory(this.redactor, options.apiKey);
    this.recorder = new Recorder({
      checks: this.checks,
      selected: (rule) => this.selected(rule),
      evidence: this.evidence,
      target: settings.target,
      nothingJudged: (rule, check) => this.#nothingJudged(rule, check),
    });
    // Everything the run sends and receives passes the redaction boundary (core/boundary.ts); a transcript's replay crossed it when it was recorded.
    const transport = options.transport;
    this.width = settings.widenConcurrency ? MAX_WIDENED : settings.concurrency;
    const widens = settings.widenConcurrency && !transport;
    this.#widening = widens ? new Widening({ onAnswersAlone: settings.widenOnAnswersAlone, timeoutMs: settings.timeoutMs }) : undefined;
    this.clients = runClients(settings.disguise, settings.seed);
    this.#http = transport
      ? undefined
      : new HttpClient({
          baseUrl: options.baseUrl,
          timeoutMs: settings.timeoutMs,
          maxBodyBytes: settings.maxBodyBytes,
          // A run that may widen: the pool can grow to the widest; the session holds the limit.
          connections: this.width,
          // Connections paced, and opened ahead while the run's first steps go one after another (core/connection/stock.ts).
          openAhead: true,
          ...settings.connection,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(settings.userAgent === undefined ? {} : { userAgent: settings.userAgent }),
          shapes: this.clients.shapes,
        });
    const boundary = new RedactionBoundary(transport ?? this.#http!, this.redactor);
    // Requests sent as other clients go on pools of their own: none of the tool's own shape would be used.
    if (settings.fingerprints.length > 0) this.#openedAhead = true;
    this.client = transport && isRedacted(transport) ? transport : boundary;
    // What the load phase's own connections receive comes in through the same door.
    this.admit = (exchange) => boundary.admit(exchange);
    this.variants = authVariants(options.apiKey, settings.seed);
    this.emit = redactingEmitter(options.onEvent, this.evidence);
    this.names =
      options.names === 'natural'
        ? naturalNamesFor(settings.seed, options.apiKey, settings.disguise)
        : prefixedNames(options.namePrefix ?? namePrefixFor(settings.seed, options.apiKey));
    // How every request is sent: credentials, 429 waits, resends, silence, stopping (suites/session.ts).
    this.session = new TargetSession({
      client: this.client,
      apiKey: options.apiKey,
      maxWaitMs: settings.maxWaitMs,
      fingerprints: settings.fingerprints,
      clients: this.clients,
      seed: settings.seed,
      // Pacing is for a target: a recorded transcript (verify's replay) or a caller's transport is not paced.
      jitterMs: transport ? 0 : settings.jitterMs,
      ...(settings.rateLimit ? { rateLimit: settings.rateLimit } : {}),
      // Only a run that may widen holds its limit here (its pool is sized for the widest); otherwise the pool's own
      // connections are the limit, as before, and a caller's transport (verify's replay) has only the checks' bounds.
      ...(this.#widening ? { concurrency: this.#widening.limit, watchLoop: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      onExchange: (x) => {
        options.onExchange?.(x);
        // Pushed back (a 429 or a 5xx), whichever request it answered, the preflight and the probes' included: no wider.
        const status = x.response?.status;
        if (this.#widening && status !== undefined && (status === 429 || status >= 500)) this.#follow(this.#widening.hold());
        // The session's probes are recorded (certify's transcript), never counted or judged.
        if (x.meta.check === PROBE) return;
        this.#answered(x.meta.check, x);
        if (this.#widening && this.#following)
          this.#follow(
            this.#widening.saw(x.durationMs, x.response !== undefined, {
              lateMs: this.session.loop.lateMs,
              busy: this.session.loop.busy,
              full: this.session.full,
              openingMs: this.#http?.quickestOpeningMs,
            }),
          );
        if (options.exchangeEvents)
          this.emit({ type: 'exchange', check: x.meta.check, seq: x.seq, line: this.evidence.redact(exchangeLine(x)) });
      },
      inspect: (x) => this.#inspect(x),
      observeRateLimit: (operation, summary, x) => this.recorder.observe('GAP-RATE-LIMITS', operation, summary, x),
    });
    this.differential = this.checks.find((c): c is DifferentialCheck => c.kind === 'differential');
    this.probe = this.#probeOf(this.differential);
  }

  /** The differential probe of a run that speaks as two client fingerprints or more; with fewer, its rules are not asked (skipped, never undecided). */
  #probeOf(check: DifferentialCheck | undefined): DifferentialProbe | undefined {
    if (!check || !check.rules.some((rule) => this.selected(rule))) return undefined;
    const { settings, options } = this;
    if (settings.fingerprints.length < 2) {
      this.recorder.checkSkipped(check, { code: 'not-asked', needs: PROBE_NEEDS });
      return undefined;
    }
    return new DifferentialProbe({
      fingerprints: settings.fingerprints,
      seed: settings.seed,
      prelude: settings.prelude,
      names: this.names,
      store: this.store,
      send: (request, how) => this.session.send(check.id, request, how),
      asserter: (operation) => this.counted(this.recorder.asserter(check, operation), check.id),
      // A recorded transcript replayed sends nothing real: no pause.
      ...(options.transport
        ? {}
        : { sleep: (ms: number) => delay(ms, undefined, options.signal ? { signal: options.signal } : {}).catch(() => undefined) }),
      mayCreate: (id) => this.checks.some((c) => c.id === id && 'phase' in c && (c.phase === 'createPet' || c.phase === 'getPet')),
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

  /** The preflight answered: from now on, a run that may widen follows every exchange's time (session/in-flight.ts). */
  widen(preflight: SentExchange): void {
    this.#following = true;
    if (this.#widening?.farAtStart(preflight.durationMs, this.#http?.quickestOpeningMs)) this.#openAhead(this.width);
  }

  /** Requests in flight at most, and why: what report.json records (`options.concurrency`). */
  get concurrency(): ConcurrencyRecord {
    return this.#widening?.record ?? fixedConcurrency(this.options.concurrency === undefined ? undefined : this.settings.concurrency);
  }

  /** The limit changed to `limit`: the session holds it, and the connections it may use are opened ahead. */
  #follow(limit: number): void {
    if (limit === this.session.concurrency) return;
    this.session.concurrency = limit;
    this.#openAhead(limit);
  }

  /**
   * Keeps `count` connections open ahead of need, toward a far target (or any, asked to widen on answers alone); none
   * under `--rate-limit`: a paced run sends a few requests at a time, and connections opened for more would go unused.
   */
  #openAhead(count: number): void {
    if (!this.settings.rateLimit) this.#http?.openAhead(count, { evenNear: this.settings.widenOnAnswersAlone });
  }

  selected(rule: RuleId): boolean {
    return (this.settings.only.length === 0 || this.settings.only.includes(rule)) && !this.settings.skip.includes(rule);
  }

  /** Sends a request of the run; the differential probe, while it follows the run, sees its answer (and may send it again as other clients) before the check does. */
  async send(check: string, request: SendOptions): Promise<SentExchange> {
    // The run's first request (the probe's prelude aside): the connections its limit will use open meanwhile (far: `widen`).
    if (!this.#openedAhead && check !== this.differential?.id) {
      this.#openedAhead = true;
      this.#openAhead(this.#widening?.limit ?? this.settings.concurrency);
    }
    const x = await this.session.send(check, request);
    await this.probe?.after(check, request, x);
    return x;
  }

  /** Counts a failure of `rule` towards --max-failures. */
  noteFailure(rule: RuleId, check?: string): void {
    const severity = catalog.find((r) => r.id === rule)?.severity ?? 'MUST';
    if (check !== undefined && this.selected(rule) && !this.#told.has(rule)) {
      this.#told.add(rule);
      this.emit({ type: 'rule-failed', rule, check, severity });
    }
    if (!this.selected(rule) || !failsRun({ outcome: 'fail', severity }, this.settings.strict)) return;
    this.#failing.add(rule);
    const limit = this.settings.maxFailures;
    if (limit !== undefined && this.#failing.size >= limit)
      this.session.stop(new TargetLost({ code: 'max-failures', failing: this.#failing.size, limit }));
  }

  /** `asserter` (of `check`) with its failures counted towards --max-failures, the first of each rule announced. */
  counted(asserter: Asserter, check: string): Asserter {
    return {
      ...asserter,
      fail: (rule, ...rest) => {
        asserter.fail(rule, ...rest);
        this.noteFailure(rule, check);
      },
    };
  }

  took(check: string, since: number): void {
    this.#checkTime.set(check, (this.#checkTime.get(check) ?? 0) + (performance.now() - since));
  }

  /** An active check ran from `since` (`performance.now()`) until now: its time, and when it started. */
  ran(check: string, since: number): void {
    this.#checkStart.set(check, performance.timeOrigin + since);
    this.took(check, since);
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
        check.inspect(x, this.#judgeOf(check, x.meta.operation));
      } catch (error) {
        this.recorder.checkError(check, (error as Error).message);
      }
      this.took(check.id, started);
    }
  }

  /** A response check's asserter and observer for `operation`: the same closures every time, made once. */
  #judgeOf(check: ResponseCheck, operation: OperationId): Asserter & Observer {
    const key = `${check.id} ${operation}`;
    if (!this.#judges.has(key))
      this.#judges.set(key, { ...this.counted(this.recorder.asserter(check, operation), check.id), ...this.recorder.observer(check) });
    return this.#judges.get(key)!;
  }

  #answered(check: string, x: SentExchange): void {
    // A deadline that came due while the suite's own loop was stalled says nothing of the target: labelled as the suite's.
    const label = x.response
      ? String(x.response.status)
      : stalledFor(x.error) !== undefined
        ? STALLED_LABEL
        : PROXY_FAILED.test(x.error?.message ?? '')
          ? PROXY_LABEL
          : `no response (${x.error?.code ?? 'error'})`;
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

  /** The result (suites/result-builder.ts), everything redacted once more, and the run's end announced. */
  result(startedAt: Date, abort: Summary['abort']): ConformanceResult {
    const { settings, session } = this;
    const stopped =
      session.stopped?.message ??
      (this.cutShort.length > 0
        ? `the target was still rate-limiting after the ${Math.round(settings.maxWaitMs / 1000)} s wait budget: ${this.cutShort.length} check(s) were cut short, their rules inconclusive`
        : undefined);
    const result = buildResult({
      settings,
      options: this.options,
      names: this.names,
      recorded: this.recorder.results(),
      checkTime: this.#checkTime,
      checkStart: this.#checkStart,
      requestsSent: this.client.requestsSent,
      concurrency: this.concurrency,
      checks: this.checks.length,
      skippedPhases: this.skippedPhases,
      loads: this.loads,
      startedAt,
      ...(stopped ? { stopped } : {}),
      ...(abort ? { abort } : {}),
      ...(session.interrupted ? { interrupted: session.interrupted.signal } : {}),
    });
    redactResult(result, this.evidence);
    this.emit({ type: 'run-end', result });
    return result;
  }
}

/** The label of an exchange whose deadline came due while the suite's own event loop was stalled, in a check's tally of answers. */
const STALLED_LABEL = "not read in time (the suite's own event loop stalled)";

/** The label of an exchange the proxy did not carry to the target (core/tunnel.ts), in a check's tally of answers. */
const PROXY_LABEL = 'not carried (the proxy failed)';

/** Key of the whole run's answers in the engine's tally. */
const RUN_ANSWERS = '\u0000run';
