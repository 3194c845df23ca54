/**
 * Waiting for a target still starting: a CI job starts the server in the
 * background and the suite at once, and a refused connection would end the run
 * (exit 2) before the server listens. Until any HTTP answer arrives, of any
 * status (or a failure no starting server gives: TLS, not HTTP), GET /pets?limit=1 is sent again, without the key (nothing is judged
 * of it and the key need not travel before the run), on a client of its own
 * (not the run's: nothing of the wait is in the run's exchanges or its
 * transcript), with backoff from 100 ms to 2 s, bounded in time by the wait and
 * in count by it too.
 */
import { HttpClient } from '../core/http.js';
import type { ConnectOptions } from '../core/connection.js';

/** What the wait saw: an answer, or the last failure when none came in time. */
export type Waited = { listening: true; waitedMs: number } | { listening: false; waitedMs: number; code?: string; last: string };

/** Failures of a server not listening yet: asked again. */
const STILL_STARTING: ReadonlySet<string> = new Set(['PC_ERR_UNREACHABLE', 'PC_ERR_TIMEOUT']);
const FIRST_DELAY_MS = 100;
const LONGEST_DELAY_MS = 2000;

/** Waits up to `waitForMs` for any HTTP answer from `target`; stops early when `signal` aborts. */
export async function waitForTarget(
  target: string,
  options: { waitForMs: number; timeoutMs: number; connection: ConnectOptions; signal?: AbortSignal },
): Promise<Waited> {
  const started = performance.now();
  const elapsed = () => performance.now() - started;
  // An attempt may take no longer than what is left of the wait (a target that accepts and never answers held
  // `--wait-for 2` for the request deadline, 20 s), and a stop (Ctrl-C) ends the attempt in flight, not only the pause
  // after it. A client per attempt: each has the deadline left (each attempt is on a new connection anyway).
  const attemptOn = (left: number) =>
    new HttpClient({
      baseUrl: target,
      timeoutMs: Math.min(options.timeoutMs, Math.max(Math.ceil(left), FIRST_DELAY_MS)),
      connections: 1,
      ...options.connection,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  // At most one attempt per first delay of the wait, and one more: bounded in count whatever the clock does.
  const attempts = Math.ceil(options.waitForMs / FIRST_DELAY_MS) + 1;
  let last: { code?: string; message: string } = { message: 'no request sent' };
  for (let attempt = 0, delay = FIRST_DELAY_MS; attempt < attempts; attempt++, delay = Math.min(2 * delay, LONGEST_DELAY_MS)) {
    const client = attemptOn(options.waitForMs - elapsed());
    let x;
    try {
      x = await client.send({ method: 'GET', path: '/pets?limit=1', fresh: true });
    } finally {
      await client.close();
    }
    // Stopped: nothing is known of the target (the caller tells the stop).
    if (options.signal?.aborted) break;
    // An answer, or a failure that is not the network's (TLS, not HTTP): something listens, and the preflight tells what.
    if (x.response || (x.error && !STILL_STARTING.has(x.error.code))) return { listening: true, waitedMs: elapsed() };
    last = { ...(x.error?.code ? { code: x.error.code } : {}), message: x.error?.message ?? 'no answer' };
    const left = options.waitForMs - elapsed();
    if (left <= 0) break;
    await pause(Math.min(delay, left), options.signal);
  }
  return { listening: false, waitedMs: elapsed(), ...(last.code ? { code: last.code } : {}), last: last.message };
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
