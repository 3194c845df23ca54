/**
 * Fixed arrival rate, paced by the suite itself on its own sender (sender.ts):
 * request i is due at start + i/rate; latency is measured from when it was due
 * (wrk2's method), so a stalled server shows in the percentiles; a due request
 * that finds every connection busy is dropped and counted (k6's
 * dropped_iterations), and one sent more than 10 ms after it was due is counted
 * as late. Each connection carries one request at a time, and a request's
 * deadline starts when it is written, so a busy generator never reads as the
 * target's timeout. Requests still open at the end are waited for until their
 * deadline; one with no answer by then counts as a timeout. Once the proxy
 * failed tunnels in a row (sender.ts `Lanes.proxyFailed`), nothing more is
 * sent, and the run says so.
 */
import type { MixRequest } from './mix.js';
import { type FailureKind, Lanes, type LaneUser, type LoadRun, prepare, type Sampled, type SenderLane } from './sender.js';

export interface PacedRun extends LoadRun {
  /** Requests due per second. */
  rate: number;
}

/** A send more than this late counts as late. */
export const LATE_MS = 10;

export async function runPaced(run: PacedRun): Promise<{
  durationMs: number;
  schedule: { due: number; sent: number; dropped: number; late: number };
  stoppedEarly?: string;
  proxyFailed?: string;
}> {
  const prepared = prepare(run);
  const lanes = new Lanes(run, run.connections);
  const total = Math.min(run.maxRequests, Math.floor(run.rate * run.durationSec));
  const interval = 1000 / run.rate;
  const started = performance.now() + 20;
  const schedule = { due: total, sent: 0, dropped: 0, late: 0 };
  const ticker = setInterval(() => run.onTick?.(Math.round((performance.now() - started) / 1000)), 1000);
  ticker.unref();
  let open = 0;
  let allEnded: (() => void) | undefined;
  let crash: unknown;
  // Interrupted: nothing more is sent, and what is in flight is dropped uncounted.
  const stop = () => {
    lanes.drop();
    allEnded?.();
  };
  run.signal?.addEventListener('abort', stop, { once: true });

  /** A connection's user: the request on it and when that was due; back to the idle ones when it ends. */
  class Slot implements LaneUser {
    request: MixRequest | undefined;
    due = 0;
    constructor(readonly lane: SenderLane) {
      lane.user = this;
    }
    answered(status: number, sampled: Sampled | undefined): void {
      this.end(() => run.onResponse(this.request!, status, (performance.now() - this.due) * 1000, sampled));
    }
    failed(kind: FailureKind): void {
      this.end(() => run.onFailure(kind, this.request!));
    }
    end(report: () => void): void {
      try {
        report();
      } catch (error) {
        // Never thrown into undici's parser: the run ends and rejects with it.
        crash ??= error;
      }
      idle.push(this);
      if (--open === 0) allEnded?.();
    }
  }
  const idle: Slot[] = lanes.all.map((lane) => new Slot(lane));

  try {
    for (let i = 0; i < total && !crash && !run.signal?.aborted && !lanes.proxyFailed; i++) {
      const due = started + i * interval;
      const wait = due - performance.now();
      // setTimeout is coarse: sleep only when more than a millisecond ahead; requests already due go out together.
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (run.signal?.aborted || lanes.proxyFailed) break;
      // Every connection busy: the loop reads its sockets once before the request is dropped (requests already due go
      // out without a turn in between, and an answer waiting there is the generator's, not the target's, delay).
      if (idle.length === 0) await new Promise((resolve) => setImmediate(resolve));
      const slot = idle.pop();
      if (!slot) {
        schedule.dropped++;
        continue;
      }
      if (performance.now() - due > LATE_MS) schedule.late++;
      schedule.sent++;
      const item = prepared[i % prepared.length]!;
      slot.request = item.request;
      slot.due = due;
      open++;
      slot.lane.send(item, run.sample(item.request));
    }
    if (open > 0 && !run.signal?.aborted) await new Promise<void>((resolve) => (allEnded = resolve));
  } finally {
    clearInterval(ticker);
    run.signal?.removeEventListener('abort', stop);
    await lanes.close();
  }
  if (crash) throw crash as Error;
  const proxyFailed = lanes.proxyFailed;
  const stoppedEarly = run.signal?.aborted ? 'interrupted' : proxyFailed;
  return {
    durationMs: performance.now() - started,
    schedule,
    ...(stoppedEarly ? { stoppedEarly } : {}),
    ...(proxyFailed ? { proxyFailed } : {}),
  };
}
