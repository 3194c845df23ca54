/**
 * Closed-loop load on the suite's own sender (sender.ts): `connections`
 * virtual users, each bound to one connection, each sending its next request
 * as soon as its last one is answered (or failed). Latency is measured per
 * response, in µs, from when the request was handed to its connection. No
 * rate, so no coordinated-omission correction: this is what a closed loop
 * measures.
 *
 * When the duration is up or the request cap is reached, no new request is
 * sent; the requests still open are waited for until their own deadline, and
 * one that gets no answer by then counts as a timeout (never dropped). Nor
 * once the proxy failed tunnels in a row (sender.ts `Lanes.proxyFailed`):
 * the run then says so.
 */
import type { MixRequest } from './mix.js';
import { type FailureKind, Lanes, type LaneUser, type LoadRun, type Prepared, prepare, type Sampled, type SenderLane } from './sender.js';

export type { LoadRun, Observed } from './sender.js';

/** A virtual user whose connection failed waits this long before its next request, doubling up to {@link MAX_BACKOFF_MS} while it keeps failing. */
const FIRST_BACKOFF_MS = 1;
const MAX_BACKOFF_MS = 250;

/** What the virtual users of a run share. */
interface Loop {
  run: LoadRun;
  lanes: Lanes;
  prepared: Prepared[];
  next: number;
  sent: number;
  stopping: boolean;
  stoppedEarly: string | undefined;
  active: number;
  crash: unknown;
  finish: () => void;
}

/** One virtual user: sends on its lane, and on each outcome sends again until the profile ends. */
class VirtualUser implements LaneUser {
  readonly #loop: Loop;
  readonly #lane: SenderLane;
  #request: MixRequest | undefined;
  #at = 0;
  #backoff = 0;
  readonly #go = () => this.go();

  constructor(loop: Loop, lane: SenderLane) {
    this.#loop = loop;
    this.#lane = lane;
    lane.user = this;
  }

  go(): void {
    const loop = this.#loop;
    const proxyFailed = loop.lanes.proxyFailed;
    if (proxyFailed && !loop.stopping) {
      loop.stopping = true;
      loop.stoppedEarly ??= proxyFailed;
    }
    if (loop.stopping || loop.sent >= loop.run.maxRequests || loop.crash) {
      if (!loop.stopping && !loop.crash && !loop.stoppedEarly) loop.stoppedEarly = 'the request cap was reached';
      if (--loop.active === 0) loop.finish();
      return;
    }
    const item = loop.prepared[loop.next]!;
    loop.next = loop.next + 1 === loop.prepared.length ? 0 : loop.next + 1;
    loop.sent++;
    this.#request = item.request;
    this.#at = performance.now();
    this.#lane.send(item, loop.run.sample(item.request));
  }

  answered(status: number, sampled: Sampled | undefined): void {
    this.#backoff = 0;
    try {
      this.#loop.run.onResponse(this.#request!, status, (performance.now() - this.#at) * 1000, sampled);
    } catch (error) {
      // Never thrown into undici's parser: the run ends and rejects with it.
      this.#loop.crash ??= error;
    }
    this.go();
  }

  failed(kind: FailureKind): void {
    try {
      this.#loop.run.onFailure(kind, this.#request!);
    } catch (error) {
      this.#loop.crash ??= error;
    }
    if (kind === 'socketErrors') {
      this.#backoff = this.#backoff === 0 ? FIRST_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, this.#backoff * 2);
      setTimeout(this.#go, this.#backoff);
    } else {
      this.go();
    }
  }
}

/** Runs one closed-loop stage; resolves when the duration or the request cap is reached and every request sent has ended. */
export function runClosed(run: LoadRun): Promise<{ durationMs: number; sent: number; stoppedEarly?: string; proxyFailed?: string }> {
  const lanes = new Lanes(run, run.connections);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const ticker = setInterval(() => run.onTick?.(Math.round((performance.now() - started) / 1000)), 1000);
    ticker.unref();
    let finished = false;
    // Interrupted: nothing more is sent, and what is in flight is dropped uncounted (it would read as the target's failure).
    const stop = () => {
      loop.stopping = true;
      loop.stoppedEarly ??= 'interrupted';
      lanes.drop();
      loop.finish();
    };
    const loop: Loop = {
      run,
      lanes,
      prepared: prepare(run),
      next: 0,
      sent: 0,
      stopping: false,
      stoppedEarly: undefined,
      active: lanes.all.length,
      crash: undefined,
      finish: () => {
        if (finished) return;
        finished = true;
        clearInterval(ticker);
        run.signal?.removeEventListener('abort', stop);
        clearTimeout(ending);
        const durationMs = performance.now() - started;
        const { sent, stoppedEarly, crash } = loop;
        const proxyFailed = lanes.proxyFailed;
        // Closed on the next turn: the last answer may still be inside undici's parser.
        setImmediate(
          () =>
            void lanes
              .close()
              .then(
                () =>
                  crash
                    ? reject(crash as Error)
                    : resolve({ durationMs, sent, ...(stoppedEarly ? { stoppedEarly } : {}), ...(proxyFailed ? { proxyFailed } : {}) }),
                reject,
              ),
        );
      },
    };
    const ending = setTimeout(() => (loop.stopping = true), run.durationSec * 1000);
    const users = lanes.all.map((lane) => new VirtualUser(loop, lane));
    if (run.signal?.aborted) return stop();
    run.signal?.addEventListener('abort', stop, { once: true });
    for (const user of users) user.go();
  });
}
