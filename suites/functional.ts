/**
 * The functional phases of a run (suites/engine.ts): the plan's graph of
 * phases, each check run with what it sees of the run (its context).
 */
import type { ActiveCheck, CheckContext, SendOptions, SentExchange } from './check.js';
import type { Outcome, RunEvent } from '../result/model.js';
import { InPlanOrder, inCheck, inItemOrder, mapBounded, mapInItemOrder, runPhases } from './schedule.js';
import { runProperty } from './property.js';
import { EARLY, PLAN } from './plan.js';
import { type SkipReason, type StopReason, skipText } from '../result/reasons.js';
import { NotJudged, RateLimited, TargetLost } from './session.js';
import type { Run } from './run.js';
import { checkSeed } from './seeds.js';

/**
 * The functional phases, as the plan's graph: within a phase the checks run
 * concurrently, and their events go out in plan order whatever ends first.
 */
export async function runFunctionalPhases(run: Run, aborted: StopReason | undefined): Promise<void> {
  const plan = run.checks.filter((c): c is ActiveCheck => c.kind === 'example' || c.kind === 'property');
  const events = new InPlanOrder<RunEvent>(plan.length, run.emit);
  // A CI log without a TTY shows the run is alive through a long phase: requests sent, every 10 s.
  const started = performance.now();
  const heartbeat = setInterval(
    () => run.emit({ type: 'heartbeat', requests: run.client.requestsSent, elapsedSec: Math.round((performance.now() - started) / 1000) }),
    HEARTBEAT_MS,
  );
  heartbeat.unref();
  try {
    await runPhasesOf(run, plan, events, aborted);
  } finally {
    clearInterval(heartbeat);
  }
}

/** Time between two heartbeats of the functional phases, ms: at most one line every 10 s in a CI log. */
const HEARTBEAT_MS = 10_000;

async function runPhasesOf(run: Run, plan: ActiveCheck[], events: InPlanOrder<RunEvent>, aborted: StopReason | undefined): Promise<void> {
  const { recorder, session, settings } = run;
  // A check waits for its phase's `after`, or for what plan.ts EARLY says; a phase starts with its first check that may.
  const waits = (check: ActiveCheck) => EARLY.find((e) => e.check === check.id)?.after ?? PLAN.find((p) => p.name === check.phase)!.after;
  const scheduled = PLAN.map(({ name, after }) => ({
    name,
    after: after.filter((phase) => plan.every((c) => c.phase !== name || waits(c).includes(phase))),
  }));
  await runPhases(scheduled, async (phase, ended) => {
    const active = plan.filter((c) => c.phase === phase);
    if (active.length === 0) return;
    const ready = active.map((check) => ended(waits(check)));
    await Promise.race(ready);
    const stop = aborted ?? session.stopped?.reason;
    if (stop) {
      for (const check of active) {
        recorder.checkSkipped(check, { code: 'not-run', stop });
        events.settle(plan.indexOf(check), []);
      }
      run.skipPhase(phase, { code: 'not-run', stop });
      return;
    }
    // Told as it starts (a CI log then shows a failing rule under its phase); its checks' ends follow in plan order.
    run.emit({ type: 'phase-start', phase, checks: active.length });
    const phaseStarted = performance.now();
    // The phase's last check in plan order settles once every check has ended, with the phase's end after it.
    const last = active.length - 1;
    let lastEvents: RunEvent[] = [];
    const settleLast = () => {
      const outcomes = [...recorder.outcomesOf(active)];
      const rules: Partial<Record<Outcome, number>> = {};
      for (const [, outcome] of outcomes) rules[outcome] = (rules[outcome] ?? 0) + 1;
      const failed = outcomes.filter(([, o]) => o === 'fail').map(([rule]) => rule);
      const durationMs = Math.round(performance.now() - phaseStarted);
      events.settle(plan.indexOf(active[last]!), [...lastEvents, { type: 'phase-end', phase, rules, failed, durationMs }]);
    };
    // Stopped by the time the phase would start without its early checks: the rest of it is not run, as a phase.
    const early = (check: ActiveCheck) => EARLY.some((e) => e.check === check.id);
    let atStart: { stop?: StopReason } | undefined;
    const stoppedAtStart = () => {
      if (!atStart) {
        atStart = session.stopped ? { stop: session.stopped.reason } : {};
        if (atStart.stop) run.skipPhase(phase, { code: 'not-run', stop: atStart.stop });
      }
      return atStart.stop;
    };
    try {
      await mapBounded(active, active.length, async (check, i) => {
        await ready[i];
        const stop = active.some(early) && !early(check) ? stoppedAtStart() : undefined;
        if (!stop) return runCheck(check, i);
        recorder.checkSkipped(check, { code: 'not-run', stop });
        if (i !== last) events.settle(plan.indexOf(check), []);
      });
    } finally {
      settleLast();
    }
    function runCheck(check: ActiveCheck, i: number): Promise<void> {
      const slot = plan.indexOf(check);
      const end = (event: RunEvent) => {
        if (i === last) lastEvents = [event];
        else events.settle(slot, [event]);
      };
      const skip = (why: SkipReason) => {
        recorder.checkSkipped(check, why);
        return end({ type: 'check-end', phase, check: check.id, title: check.title, skipped: skipText(why) });
      };
      return inCheck(slot + 1, async () => {
        if (session.stopped) return skip({ code: 'not-run', stop: session.stopped.reason });
        const runs =
          phase === 'setup' || (check.rules.length === 0 ? settings.only.length === 0 : check.rules.some((rule) => run.selected(rule)));
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
            for (const rule of check.rules)
              if (run.selected(rule)) asserter.inconclusive(rule, { code: 'CUT_SHORT', args: { reason: e.message } }, [e.exchange]);
          } else {
            recorder.checkError(check, (e as Error).message);
            error = skipText({ code: 'crashed', detail: (e as Error).message });
          }
        }
        run.ran(check.id, started);
        end({ type: 'check-end', phase, check: check.id, title: check.title, ...(error ? { error } : {}) });
      });
    }
  });
}

/** What a check sees of the run: its asserter (failures counted), its seed, the store, and a send that keeps a replay's exchanges. */
function contextFor(check: ActiveCheck, run: Run): CheckContext {
  const { recorder, store, settings } = run;
  const counted = run.counted(recorder.asserter(check, check.operation), check.id);
  // Within `parallel`, what each item judges is recorded in item order, whatever answered first (suites/schedule.ts).
  const asserter = { pass: inItemOrder(counted.pass), fail: inItemOrder(counted.fail), inconclusive: inItemOrder(counted.inconclusive) };
  // While a counterexample is replayed, what it sends is kept as evidence.
  let recording: SentExchange[] | undefined;
  const send = async (request: SendOptions) => {
    const x = await run.send(check.id, request);
    recording?.push(x);
    return x;
  };
  const observer = { observe: inItemOrder(recorder.observer(check).observe) };
  return {
    ...asserter,
    ...observer,
    settings: {
      seed: checkSeed(settings.seed, check.id),
      numRuns: settings.numRuns,
      prefix: run.names.prefix,
      names: run.names,
      timeoutMs: settings.timeoutMs,
      visibilityWindowMs: settings.visibilityWindowMs,
    },
    store,
    authVariants: run.variants,
    send,
    sendAll: (requests) => mapBounded(requests, run.width, send),
    parallel: (items, fn) => mapInItemOrder(items, run.width, (item) => fn(item)),
    property: (arbitrary, body, options) =>
      runProperty(
        {
          arbitrary,
          body,
          ...(options?.examples ? { examples: options.examples } : {}),
          seed: checkSeed(settings.seed, check.id),
          numRuns: settings.numRuns,
          timeLimitMs: settings.propertyTimeLimitMs,
          // As many as may be in flight as it starts, not the widest the run may reach: a case is checked against the
          // property's time limit as it starts, and one started only to wait for its turn would never be.
          concurrency: Math.min(run.width, run.session.concurrency),
        },
        {
          check,
          operation: check.operation,
          asserter,
          observer,
          record: (finding, counterexample) => recorder.record(check, check.operation, finding, counterexample),
          noteFailure: (rule) => run.noteFailure(rule, check.id),
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
