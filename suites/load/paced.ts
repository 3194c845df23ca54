/**
 * Fixed arrival rate, paced by the suite itself on its own sender (sender.ts):
 * request i is due at start + i/rate; latency is measured from when it was due
 * (wrk2's method), so a stalled server shows in the percentiles; a due request
 * that finds every connection busy is dropped and counted (k6's
 * dropped_iterations), and one sent more than 10 ms after it was due is counted
 * as late. Each connection carries one request at a time, and a request's
 * deadline starts when it is written, so a busy generator never reads as the
 * target's timeout. Requests still open at the end are waited for until their
 * deadline; one with no answer by then counts as a timeout.
 */
import type { MixRequest } from './mix.js';
import { type Lane, Lanes, type LoadRun, type Outcome, prepare } from './sender.js';

export interface PacedRun extends LoadRun {
  /** Requests due per second. */
  rate: number;
}

/** A send more than this late counts as late. */
export const LATE_MS = 10;

export async function runPaced(run: PacedRun): Promise<{ durationMs: number; schedule: { due: number; sent: number; dropped: number; late: number } }> {
  const prepared = prepare(run);
  const lanes = new Lanes(run, run.connections);
  const idle: Lane[] = [...lanes.all];
  const total = Math.min(run.maxRequests, Math.floor(run.rate * run.durationSec));
  const interval = 1000 / run.rate;
  const started = performance.now() + 20;
  const schedule = { due: total, sent: 0, dropped: 0, late: 0 };
  const ticker = setInterval(() => run.onTick?.(Math.round((performance.now() - started) / 1000)), 1000);
  ticker.unref();
  let open = 0;
  let allEnded: (() => void) | undefined;
  let crash: unknown;

  const send = (lane: Lane, request: MixRequest, index: number, due: number) => {
    open++;
    lane.send(prepared[index]!, run.sample(request), (outcome: Outcome) => {
      try {
        if ('failure' in outcome) run.onFailure(outcome.failure, request);
        else run.onResponse({ request, status: outcome.status, headers: outcome.headers, body: outcome.body, truncated: outcome.truncated, latencyUs: (performance.now() - due) * 1000 });
      } catch (error) {
        // Never thrown into undici's parser: the run ends and rejects with it.
        crash ??= error;
      }
      idle.push(lane);
      if (--open === 0) allEnded?.();
    });
  };

  try {
    for (let i = 0; i < total && !crash; i++) {
      const due = started + i * interval;
      const wait = due - performance.now();
      // setTimeout is coarse: sleep only when more than a millisecond ahead; requests already due go out together.
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      const lane = idle.pop();
      if (!lane) {
        schedule.dropped++;
        continue;
      }
      if (performance.now() - due > LATE_MS) schedule.late++;
      schedule.sent++;
      const index = i % prepared.length;
      send(lane, prepared[index]!.request, index, due);
    }
    if (open > 0) await new Promise<void>((resolve) => (allEnded = resolve));
  } finally {
    clearInterval(ticker);
    await lanes.close();
  }
  if (crash) throw crash as Error;
  return { durationMs: performance.now() - started, schedule };
}
