/**
 * The conformance engine: runs the checks against a target in phases and
 * returns the result report.json holds. It emits events as it goes; it never
 * imports a reporter or the CLI.
 */
import { PcError, PreflightError, UsageError } from '../core/errors.js';
import { connectionRecord, redactSecrets } from '../core/connection.js';
import { HttpClient, type Transport } from '../core/http.js';
import { RedactionBoundary } from '../core/boundary.js';
import { redactorFor } from '../core/redact.js';
import { TOOL_VERSION } from '../core/version.js';
import { INTERFACE_VERSION } from '../spec/openapi.js';
import { type RuleId, rules as catalog } from '../spec/rules.js';
import { type ActiveCheck, type Asserter, type CheckContext, type Phase, type ResponseCheck, type SendOptions, type SentExchange, StoreState } from './check.js';
import { authVariants } from './credentials.js';
import { EvidenceFactory, redactResult, redactingEmitter } from './evidence.js';
import type { ConformanceResult, LoadResult, RuleOutcome, RunEvent, Summary, Waiver, WaiverResult } from './model.js';
import { decideVerdict, failsRun, thresholdsOutcome } from './policy.js';
import { loadChecks, runLoadProfile } from './load/phase.js';
import { PROFILE_NAMES } from './load/profiles.js';

export type { RunEvent } from './model.js';
import { Recorder } from './recorder.js';
import { runProperty } from './property.js';
import { InPlanOrder, inCheck, mapBounded, runPhases } from './schedule.js';
import { builtinChecks } from './registry.js';
import { listPets } from './requests.js';
import { DEFAULTS } from './defaults.js';
import { type ConformanceOptions, type Resolved, resolve } from './options.js';
import { Interrupted, PREFLIGHT, PROBE, RateLimited, TargetLost, TargetSession } from './session.js';

export { LOST_AFTER } from './session.js';


export { DEFAULTS };
export type { ConformanceOptions } from './options.js';

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


export { STORE_INFERRED_RULES } from './property.js';





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
  // --max-failures: the rules that failed so far; at the bound, nothing more is sent (as when the target is lost).
  const failing = new Set<RuleId>();
  const noteFailure = (rule: RuleId) => {
    const severity = catalog.find((r) => r.id === rule)?.severity ?? 'MUST';
    if (!selected(rule) || !failsRun({ outcome: 'fail', severity }, settings.strict)) return;
    failing.add(rule);
    if (settings.maxFailures !== undefined && failing.size >= settings.maxFailures) {
      session.stop(new TargetLost(`stopped after ${failing.size} failing rule${failing.size === 1 ? '' : 's'} (--max-failures ${settings.maxFailures})`));
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
  // How every request is sent: credentials, 429 waits, resends, silence, stopping (suites/session.ts).
  const session = new TargetSession({
    client,
    apiKey: options.apiKey,
    maxWaitMs: settings.maxWaitMs,
    ...(settings.rateLimit ? { rateLimit: settings.rateLimit } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    onExchange: (x) => {
      options.onExchange?.(x);
      // The session's probes are recorded (certify's transcript), never counted or judged.
      if (x.meta.check === PROBE) return;
      answered(x.meta.check, x);
      if (options.exchangeEvents) emit({ type: 'exchange', check: x.meta.check, seq: x.seq, line: evidence.redact(exchangeLine(x)) });
    },
    inspect,
    observeRateLimit: (operation, summary, x) => recorder.observe('GAP-RATE-LIMITS', operation, summary, x),
  });
  const send = (check: string, request: SendOptions) => session.send(check, request);
  const skippedPhases: ConformanceResult['skippedPhases'] = [];
  const loads: LoadResult[] = [];

  emit({ type: 'run-start', target: settings.target, seed: settings.seed, checks: checks.length });
  // The run's overall bound: past it nothing more is sent; what ran is kept, the rest is reported as not run.
  const bound = setTimeout(() => {
    session.stop(new TargetLost(`the run reached its time bound (${Math.round(settings.maxTimeMs / 1000)} s)`));
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
      const stop = abort ?? session.stopped;
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
        return inCheck(slot + 1, async () => {
          if (session.stopped) {
            recorder.checkSkipped(check, `not run: ${session.stopped.message}`);
            return end({ type: 'check-end', phase, check: check.id, title: check.title, skipped: session.stopped.message });
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
              for (const rule of check.rules) if (selected(rule)) asserter.inconclusive(rule, { code: 'CUT_SHORT', args: { reason: e.message } }, [e.exchange]);
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
      const refusal = abort?.message ?? session.stopped?.message ?? refuseLoad(recorder.results().rules);
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
    session.close();
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
    summary: summarise(rules, settings.strict, client, checks.length, session.stopped?.message ?? (cutShort.length > 0 ? `the target was still rate-limiting after the ${Math.round(settings.maxWaitMs / 1000)} s wait budget: ${cutShort.length} check(s) were cut short, their rules inconclusive` : undefined), abort, loads, session.interrupted?.signal),
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

/** A positive finite number, or a `UsageError` naming the option. */

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
