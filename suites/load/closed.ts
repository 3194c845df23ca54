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
 * one that gets no answer by then counts as a timeout (never dropped).
 */
import type { MixRequest } from './mix.js';
import { type Lane, Lanes, type LoadRun, type Outcome, prepare } from './sender.js';

export type { LoadRun, Observed } from './sender.js';

/** A virtual user whose connection failed waits this long before its next request, doubling up to {@link MAX_BACKOFF_MS} while it keeps failing. */
const FIRST_BACKOFF_MS = 1;
const MAX_BACKOFF_MS = 250;

/** Runs one closed-loop stage; resolves when the duration or the request cap is reached and every request sent has ended. */
export function runClosed(run: LoadRun): Promise<{ durationMs: number; sent: number; stoppedEarly?: string }> {
  const prepared = prepare(run);
  const lanes = new Lanes(run, run.connections);
  const started = performance.now();
  let next = 0;
  let sent = 0;
  let stopping = false;
  let stoppedEarly: string | undefined;
  let active = 0;
  let crash: unknown;

  return new Promise((resolve, reject) => {
    const ticker = setInterval(() => run.onTick?.(Math.round((performance.now() - started) / 1000)), 1000);
    ticker.unref();
    const ending = setTimeout(() => (stopping = true), run.durationSec * 1000);

    const finish = () => {
      clearInterval(ticker);
      clearTimeout(ending);
      const durationMs = performance.now() - started;
      void lanes.close().then(() => (crash ? reject(crash as Error) : resolve({ durationMs, sent, ...(stoppedEarly ? { stoppedEarly } : {}) })), reject);
    };

    /** One virtual user: sends, and on each outcome sends again until the profile ends. */
    const user = (lane: Lane) => {
      let backoff = 0;
      const go = (): void => {
        if (stopping || sent >= run.maxRequests || crash) {
          if (!stopping && !crash && sent >= run.maxRequests && !stoppedEarly) stoppedEarly = 'the request cap was reached';
          if (--active === 0) finish();
          return;
        }
        const item = prepared[next]!;
        next = next + 1 === prepared.length ? 0 : next + 1;
        sent++;
        const request: MixRequest = item.request;
        const at = performance.now();
        lane.send(item, run.sample(request), (outcome: Outcome) => {
          try {
            if ('failure' in outcome) {
              run.onFailure(outcome.failure, request);
              if (outcome.failure === 'socketErrors') {
                backoff = backoff === 0 ? FIRST_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, backoff * 2);
                setTimeout(go, backoff);
                return;
              }
            } else {
              backoff = 0;
              run.onResponse({ request, status: outcome.status, headers: outcome.headers, body: outcome.body, truncated: outcome.truncated, latencyUs: (performance.now() - at) * 1000 });
            }
          } catch (error) {
            // Never thrown into undici's parser: the run ends and rejects with it.
            crash ??= error;
          }
          go();
        });
      };
      active++;
      go();
    };
    for (const lane of lanes.all) user(lane);
  });
}
