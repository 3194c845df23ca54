/**
 * The conformance engine: runs the checks against a target in phases and
 * returns the result report.json holds. It emits events as it goes; it never
 * imports a reporter or the CLI. Its seams: options (options.ts), one run's
 * state and services (run.ts), the target session (session.ts), the
 * functional phases (functional.ts: the plan of plan.ts, run by schedule.ts;
 * the property runner, property.ts), the load phase (load/), the result
 * (result-builder.ts), reasons as data (result/reasons.ts).
 */
import { PcError, PreflightError } from '../core/errors.js';
import type { SendOptions, SentExchange } from './check.js';
import type { ConformanceResult, Summary } from '../result/model.js';
import { runLoadProfile } from './load/phase.js';
import { PROFILE_NAMES } from './load/profiles.js';
import { listPets, PREFLIGHT_LIMIT } from './requests.js';
import { drawnLimit } from './probe/prelude.js';
import { DEFAULTS } from './defaults.js';
import { type ConformanceOptions, resolve } from './options.js';
import type { SkipReason, StopReason } from '../result/reasons.js';
import { Interrupted, PREFLIGHT, TargetLost } from './session.js';
import { Run } from './run.js';
import { runFunctionalPhases } from './functional.js';
import { waitForTarget } from './wait-for.js';

export type { RunEvent } from '../result/model.js';
export type { ConformanceOptions } from './options.js';
export { LOST_AFTER } from './session.js';
export { STORE_INFERRED_RULES } from './property.js';
export { PHASES, PLAN } from './plan.js';
export { applyWaivers } from './waivers.js';
export { DEFAULTS };
export { exchangeLine } from './exchange-line.js';
export { checkSeed, namePrefixFor, naturalNamesFor } from './seeds.js';

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
  const run = new Run(options, resolve(options));
  const { settings, session } = run;
  const startedAt = new Date();
  run.emit({ type: 'run-start', target: settings.target, seed: settings.seed, checks: run.checks.length });
  // The run's overall bound: past it nothing more is sent; what ran is kept, the rest is reported as not run.
  const bound = setTimeout(
    () => session.stop(new TargetLost({ code: 'time-bound', seconds: Math.round(settings.maxTimeMs / 1000) })),
    settings.maxTimeMs,
  );
  bound.unref();
  let abort: Summary['abort'];
  try {
    // A target still starting is waited for, when asked; one that never listened is not tested.
    abort = await waitIfAsked(run, options.signal);
    // A full page, the setup's first look at the store too; under the probe's drawn prelude, drawn (a constant first
    // request would be the signature of a run's start); given as a run sent it (verify's replay).
    const limit =
      options.preflightLimit ??
      (run.probe && run.settings.prelude === 'drawn' ? drawnLimit(run.settings.seed, 'preflight') : PREFLIGHT_LIMIT);
    const asked = listPets(limit === 'none' ? {} : { limit });
    // The differential probe's prelude comes before anything else: nothing suite-like has been seen yet.
    run.probe?.comparePreflight(asked);
    if (!abort) await run.prelude();
    abort ??= await preflight((request) => run.send(PREFLIGHT, request), asked).then(
      (x) => {
        if (limit === PREFLIGHT_LIMIT) run.store.listing = x;
        // The round trip is measured: asked to widen, the rest of the run may keep more in flight.
        run.widen(x);
        return undefined;
      },
      (error: unknown) => {
        if (error instanceof PcError) return { code: error.code, message: error.message };
        // Interrupted during the preflight: nothing was tested; every check is "not run" below.
        if (error instanceof Interrupted) return undefined;
        throw error;
      },
    );
    const aborted: StopReason | undefined = abort ? { code: 'preflight', error: abort } : undefined;
    if (aborted)
      for (const check of [...run.responseChecks, ...(run.differential ? [run.differential] : [])])
        run.recorder.checkSkipped(check, { code: 'not-run', stop: aborted });
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
  const failed = recorder
    .results()
    .rules.filter((r) => (r.id === 'AUTH-VALID-KEY' || r.id === 'AUTH-REQUIRED') && r.outcome === 'fail')
    .map((r) => r.id);
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
        clients: run.clients,
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

/** Waits for the target to listen when the run was asked to; the abort of a target that never did. */
async function waitIfAsked(run: Run, signal: AbortSignal | undefined): Promise<Summary['abort']> {
  const { settings } = run;
  if (settings.waitForMs === 0) return undefined;
  const waited = await waitForTarget(settings.target, { ...settings, signal });
  if (waited.listening || signal?.aborted) return undefined;
  const seconds = Math.round(settings.waitForMs / 100) / 10;
  return {
    code: waited.code ?? 'PC_ERR_UNREACHABLE',
    message: `no HTTP answer within the ${seconds} s waited for the target: ${waited.last}`,
  };
}

/**
 * One request before anything else: the target must answer HTTP, and accept the
 * key. Otherwise every check would only repeat the same problem: the run stops,
 * and the result says why (`summary.abort`). Resolves with the exchange: its
 * time is the round trip the run's in-flight limit may widen with, its page
 * the setup's first look at the store.
 */
async function preflight(send: (request: SendOptions) => Promise<SentExchange>, request: SendOptions): Promise<SentExchange> {
  const x = await send(request);
  if (x.error) throw x.error;
  if (x.response?.status === 401) {
    throw new PreflightError(
      'PC_ERR_KEY_REJECTED',
      'the target answered 401 to GET /pets with the key: check the API key and the base URL',
    );
  }
  // Every path is relative to {base_url}, which "already ends in the version segment /v1": a 404 for GET /pets means the base URL misses the interface.
  if (x.response?.status === 404 || x.response?.status === 405) {
    const base = x.request.url.slice(0, -request.path.length);
    const hint = /\/v\d+$/.test(base) ? 'check the base URL' : `did you mean ${base}/v1?`;
    throw new PreflightError(
      'PC_ERR_NOT_AN_API',
      `the target answered ${x.response.status} to GET ${base}/pets with the key, so no Animal Store Service is at this base URL: ${hint}`,
    );
  }
  return x;
}
