/**
 * Closed-loop load with autocannon: `connections` clients, each sending its
 * next request when the last is answered. autocannon's own latency histogram
 * has 1 ms resolution, so latency is taken from each response (µs) into our
 * HDR histograms. No rate is set, so autocannon applies no coordinated-omission
 * correction (it would invent samples assuming a 1 ms interval; with no rate it
 * refuses `ignoreCoordinatedOmission`, having nothing to ignore).
 */
import autocannon from 'autocannon';
import { requestPath } from '../../core/http.js';
import type { MixRequest } from './mix.js';

/** What the runner hands back for each response. */
export interface Observed {
  request: MixRequest;
  status: number;
  headers: Record<string, string>;
  /** The body as text (autocannon decodes it); only kept when `sample` asked for it. */
  body: string | undefined;
  latencyUs: number;
}

/** What both load runners take: the closed loop (here) and the paced fixed rate (paced.ts). */
export interface LoadRun {
  /** Absolute base URL (`http://127.0.0.1:8080/v1`). */
  baseUrl: string;
  /** The mix, cycled through. */
  requests: readonly MixRequest[];
  /** Authorization header value for requests that are not auth probes. */
  authorization: string;
  /** Connections (closed loop); most requests in flight (fixed rate). */
  connections: number;
  durationSec: number;
  maxRequests: number;
  /** Whether the body of this response is wanted (bodies are kept only then). */
  sample: (request: MixRequest) => boolean;
  onResponse: (observed: Observed) => void;
  onFailure: (kind: 'timeouts' | 'socketErrors') => void;
  /** Once a second. */
  onTick?: (elapsedSec: number) => void;
}

export interface ClosedRun extends LoadRun {
  /** Deadline of one request in whole seconds (autocannon takes no fraction), at least 1. */
  timeoutSec: number;
}

/** Runs one closed-loop stage; resolves when the duration or the request cap is reached. */
export function runClosed(run: ClosedRun): Promise<{ durationMs: number; stoppedEarly?: string }> {
  const url = new URL(run.baseUrl);
  let current: { request: MixRequest; status: number; headers: Record<string, string>; body: string | undefined } | undefined;
  const requests = run.requests.map((request) => ({
    method: request.method,
    path: requestPath(url, request.path),
    headers: {
      ...(request.authProbe ? {} : { authorization: run.authorization }),
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(request.body === undefined ? {} : { body: request.body }),
    // Called with the body just before autocannon's 'response' event for the same response.
    onResponse: (status: number, body: string, _context: unknown, headers: Record<string, string>) => {
      current = { request, status, headers, body: run.sample(request) ? body : undefined };
    },
  }));
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let stoppedEarly: string | undefined;
    const ticker = setInterval(() => run.onTick?.(Math.round((performance.now() - started) / 1000)), 1000);
    ticker.unref();
    const instance = autocannon(
      {
        url: url.origin,
        connections: run.connections,
        duration: run.durationSec,
        maxOverallRequests: run.maxRequests,
        timeout: run.timeoutSec,
        requests: requests as unknown as autocannon.Request[],
      },
      (error) => {
        clearInterval(ticker);
        if (error) reject(error);
        else resolve({ durationMs: performance.now() - started, ...(stoppedEarly ? { stoppedEarly } : {}) });
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      const seen = current;
      current = undefined;
      if (!seen) return;
      run.onResponse({ request: seen.request, status: statusCode, headers: seen.headers, body: seen.body, latencyUs: responseTime * 1000 });
    });
    instance.on('reqError', (error: Error) => run.onFailure(error.message === 'request timed out' ? 'timeouts' : 'socketErrors'));
  });
}
