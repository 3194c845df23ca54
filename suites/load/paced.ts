/**
 * Fixed arrival rate, paced by the suite itself on undici: autocannon's rate
 * options send each second's budget as a burst at the start of the second, and
 * its coordinated-omission correction assumes a 1 ms interval. Here request i
 * is due at start + i/rate; latency is measured from when it was due (wrk2's
 * method), so a stalled server shows in the percentiles; a due request that
 * finds every connection busy is dropped and counted (k6's dropped_iterations),
 * and one sent more than 10 ms after it was due is counted as late.
 */
import { Pool } from 'undici';
import { requestPath } from '../../core/http.js';
import type { LoadRun } from './closed.js';
import type { MixRequest } from './mix.js';

export interface PacedRun extends LoadRun {
  /** Requests due per second. */
  rate: number;
  /** Deadline of one request, ms, from when it is sent. */
  timeoutMs: number;
}

/** A send more than this late counts as late. */
export const LATE_MS = 10;
const MAX_BODY = 1024 * 1024;

export async function runPaced(run: PacedRun): Promise<{ durationMs: number; schedule: { due: number; sent: number; dropped: number; late: number } }> {
  const url = new URL(run.baseUrl);
  const pool = new Pool(url.origin, { connections: run.connections, pipelining: 1, headersTimeout: run.timeoutMs, bodyTimeout: run.timeoutMs });
  const total = Math.min(run.maxRequests, Math.floor(run.rate * run.durationSec));
  const interval = 1000 / run.rate;
  const started = performance.now() + 20;
  const schedule = { due: total, sent: 0, dropped: 0, late: 0 };
  const inFlight = new Set<Promise<void>>();
  const ticker = setInterval(() => run.onTick?.(Math.round((performance.now() - started) / 1000)), 1000);
  ticker.unref();

  const send = (request: MixRequest, due: number): Promise<void> =>
    (async () => {
      try {
        const response = await pool.request({
          method: request.method,
          path: requestPath(url, request.path),
          headers: { ...(request.authProbe ? {} : { authorization: run.authorization }), ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: request.body ?? null,
          signal: AbortSignal.timeout(run.timeoutMs),
        });
        const wanted = run.sample(request);
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of response.body as AsyncIterable<Buffer>) {
          if (wanted && size < MAX_BODY) chunks.push(chunk);
          size += chunk.length;
        }
        const body = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(response.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
        run.onResponse({ request, status: response.statusCode, headers, body: wanted ? body : undefined, latencyUs: (performance.now() - due) * 1000 });
      } catch (error) {
        const code = (error as { code?: string; name?: string }).code ?? (error as Error).name;
        run.onFailure(code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === 'TimeoutError' || code === 'AbortError' ? 'timeouts' : 'socketErrors');
      }
    })();

  try {
    for (let i = 0; i < total; i++) {
      const due = started + i * interval;
      const wait = due - performance.now();
      // setTimeout is coarse: sleep only when more than a millisecond ahead; requests already due go out together.
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      if (inFlight.size >= run.connections) {
        schedule.dropped++;
        continue;
      }
      if (performance.now() - due > LATE_MS) schedule.late++;
      schedule.sent++;
      const pending = send(run.requests[i % run.requests.length]!, due);
      inFlight.add(pending);
      void pending.finally(() => inFlight.delete(pending));
    }
    await Promise.all(inFlight);
  } finally {
    clearInterval(ticker);
    await pool.destroy();
  }
  return { durationMs: performance.now() - started, schedule };
}
