/**
 * Says when the machine starved a test, so that a test which needs the CPU in
 * time (a deadline, a load profile's seconds, several runs at once) fails with
 * "starved: …" instead of a verdict it did not judge. A watch measures, while
 * a step runs, how late this process's event loop ran its timers and which
 * share of a core the process got; `starvedStep` runs a step under a watch and,
 * when the step fails while the process was starved, puts that first in the
 * failure's message.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** What a watch saw of the CPU this process got while a step ran. */
export interface CpuSeen {
  /** How long the step took, ms. */
  wallMs: number;
  /** The latest a timer of this process ran, ms (the event loop blocked by this process's work, or the process not scheduled). */
  maxLagMs: number;
  /** The 99th percentile of the event loop's lateness, ms. */
  p99LagMs: number;
  /** CPU time this process got over `wallMs`, in cores (0.5: half a core on average). */
  cores: number;
}

/** Starts measuring; `stop` ends the watch and says what it saw. */
export function watchCpu(): { stop(): CpuSeen } {
  const histogram = monitorEventLoopDelay({ resolution: 20 });
  histogram.enable();
  const started = performance.now();
  const cpu = process.cpuUsage();
  return {
    stop() {
      histogram.disable();
      const wallMs = performance.now() - started;
      const used = process.cpuUsage(cpu);
      return {
        wallMs,
        maxLagMs: histogram.max / 1e6,
        p99LagMs: histogram.percentile(99) / 1e6,
        cores: (used.user + used.system) / 1000 / Math.max(1, wallMs),
      };
    },
  };
}

/**
 * Whether a step that needs its timers on time to within `budgetMs` (a
 * deadline's margin) was starved: a timer of this process ran later than the
 * budget allows.
 */
export function starved(seen: CpuSeen, budgetMs: number): boolean {
  return seen.maxLagMs > budgetMs;
}

/** One line about the CPU a step got: "starved: …" when it was, for a failure's message. */
export function cpuLine(seen: CpuSeen, budgetMs: number): string {
  const what = `the event loop ran a timer up to ${Math.round(seen.maxLagMs)} ms late (p99 ${Math.round(seen.p99LagMs)} ms; ${budgetMs} ms allowed), this process got ${seen.cores.toFixed(2)} cores over ${(seen.wallMs / 1000).toFixed(1)} s`;
  return starved(seen, budgetMs) ? `starved: ${what}` : `not starved: ${what}`;
}

/**
 * Runs `step` under a watch. When it throws and the process was starved
 * (a timer more than `budgetMs` late), the error's message starts with
 * "starved: …": the failure says the machine, not the target, missed the
 * deadline. A step that passes passes, however late its timers ran.
 */
export async function starvedStep<T>(budgetMs: number, step: () => Promise<T>): Promise<T> {
  const watch = watchCpu();
  let seen: CpuSeen | undefined;
  try {
    return await step();
  } catch (error) {
    seen = watch.stop();
    if (starved(seen, budgetMs) && error instanceof Error) error.message = `${cpuLine(seen, budgetMs)}\n${error.message}`;
    throw error;
  } finally {
    if (!seen) watch.stop();
  }
}

/** The engine's own words for a run its machine starved: its event loop stalled when a request's deadline came due. */
const STALLED = /[^\n]*the suite's own event loop stalled[^\n]*/;

/**
 * Fails with "starved: …" when `text` (a run's output, its stop reason, a
 * check's reason) says the suite's own event loop stalled: what the run
 * judged after that is no verdict on the target, so the assertions on it
 * would fail with a misleading message. Call it before them.
 */
export function expectNotStarved(text: string | undefined, what = 'the run'): void {
  const said = text === undefined ? undefined : STALLED.exec(text)?.[0];
  if (said) throw new Error(`starved: ${what} says ${said.trim()}`);
}

/**
 * Runs `assertions` on a run's `text` (its output): when one fails and the
 * text says the suite's own event loop stalled, the failure's message starts
 * with "starved: …". A run that stalled and still shows what is asserted passes.
 */
export async function judgedUnlessStarved(text: string, what: string, assertions: () => void | Promise<void>): Promise<void> {
  try {
    await assertions();
  } catch (error) {
    const said = STALLED.exec(text)?.[0];
    if (said && error instanceof Error) error.message = `starved: ${what} says ${said.trim()}\n${error.message}`;
    throw error;
  }
}

/**
 * `promise`, or a failure after `ms` saying whether this process was starved
 * meanwhile ("starved: …", or "not starved: …" when the wait is the thing's
 * own). Give the test a timeout a little longer than `ms`, so that this
 * message, not vitest's, is the one shown.
 */
export async function within<T>(ms: number, what: string, promise: Promise<T>, budgetMs = 1_000): Promise<T> {
  const watch = watchCpu();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms; ${cpuLine(watch.stop(), budgetMs)}`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
    watch.stop();
  }
}

/**
 * Runs `assertions` on a load profile's result: when one fails and the
 * result says its generator was bound (result/generator.ts: its CPU, or its
 * event loop late against the latencies it measured, as when the machine
 * starves this process), the failure's message starts with "starved: …": a
 * latency threshold set aside as "not measured" then is the machine's doing,
 * not a verdict on the target. A profile whose generator was bound and still
 * shows what is asserted passes.
 */
export async function judgedUnlessBound(
  load: { generatorLoad: { cpuShare: number; eventLoopDelayP99Ms: number; bound: boolean; boundBy?: string[] } } | undefined,
  what: string,
  assertions: () => void | Promise<void>,
): Promise<void> {
  try {
    await assertions();
  } catch (error) {
    const g = load?.generatorLoad;
    if (g?.bound && error instanceof Error)
      error.message = `starved: ${what}: the load generator was bound by ${(g.boundBy ?? ['cpu']).join(' and ')} (event-loop delay p99 ${g.eventLoopDelayP99Ms} ms, ${Math.round(g.cpuShare * 100)}% of a core)\n${error.message}`;
    throw error;
  }
}
