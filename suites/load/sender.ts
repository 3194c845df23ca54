/**
 * The suite's own load sender, on undici: one lane per connection (lane.ts:
 * one request at a time on it, each answer paired with its request by
 * construction, deadlines counted from when a request is written). Both
 * runners use it: the closed loop (closed.ts), where each lane sends its next
 * request as soon as its last one is answered, and the fixed rate (paced.ts),
 * where a due request takes an idle lane. Here: what a run of either takes
 * ({@link LoadRun}), the mix prepared once for sending ({@link prepare}: path,
 * headers, body bytes, as the tool and as each client of the run's
 * fingerprints, lane i speaking as the i-th in turn), and the lanes of a run
 * ({@link Lanes}) with the sweep that enforces each request's whole deadline.
 *
 * Through a proxy, each lane's tunnel takes a few CONNECTs at most
 * (core/tunnel.ts), and a lane whose tunnel failed tries again with its next
 * request. A proxy that fails every tunnel would so be asked for CONNECTs for
 * the profile's whole length (three per request: 15,000 for 5,000 requests):
 * once it failed {@link PROXY_FAILURES_IN_A_ROW} tunnels in a row, the lanes
 * say so ({@link Lanes.proxyFailed}) and the runners open no more.
 */
import type { Dispatcher } from 'undici';
import { type ConnectOptions, REFUSED_HEADERS, tlsOptions } from '../../core/connection.js';
import type { TransportError } from '../../core/errors.js';
import { FIXED_CLIENTS, type RunClients } from '../../core/clients.js';
import type { FingerprintId } from '../../core/fingerprints.js';
import { DEFAULT_MAX_BODY_BYTES, requestPath } from '../../core/http.js';
import { fingerprintHeaders } from '../../core/request-head.js';
import { encodeRequest } from './h1.js';
import { type FailureKind, Lane, type LaneOptions, type Prepared, type Sampled } from './lane.js';
import type { MixRequest } from './mix.js';
import { RawLane } from './raw-lane.js';
import { asWritten } from '../session/written.js';

export { failureOf, Lane, type FailureKind, type LaneUser, type Prepared, type Sampled } from './lane.js';

/** A response the conformance-under-load check judges: a sampled response with its request. */
export interface Observed extends Sampled {
  request: MixRequest;
  status: number;
  latencyUs: number;
}

/** What both load runners take: the closed loop (closed.ts) and the paced fixed rate (paced.ts). */
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
  /** Deadline of one request, ms, from when it is written to its connection. */
  timeoutMs: number;
  /** Bytes of a sampled body kept, at most: the run's read bound, as the functional client's. Default 1 MiB. */
  maxBodyBytes?: number;
  /** How to connect (TLS, client certificate, proxy, extra headers): the run's one description. */
  connection?: ConnectOptions;
  /** The clients the lanes speak as, lane i as the i-th in turn. Default: none, the tool's lanes. */
  fingerprints?: readonly FingerprintId[];
  /** Each client as the run has it: its version, its application's habits (core/clients.ts). Default: core/fingerprints.ts, every call as the suite writes it. */
  clients?: RunClients;
  /** Stops the run: no new request is sent, and those in flight are dropped uncounted (an interrupted run). */
  signal?: AbortSignal;
  /** Whether this request's response is wanted (headers and body are kept only then). */
  sample: (request: MixRequest) => boolean;
  /** A response, any status; `sampled` when `sample` wanted it. */
  onResponse: (request: MixRequest, status: number, latencyUs: number, sampled: Sampled | undefined) => void;
  onFailure: (kind: FailureKind, request: MixRequest) => void;
  /** Once a second. */
  onTick?: (elapsedSec: number) => void;
}

/** A header name undici takes as given, a value it sends as given (its `isValidHTTPToken`, `isValidHeaderValue`). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
/** A path undici writes (its `invalidPathRegex`, inverted). */
const PATH = /^[\u0021-\u00ff]*$/;
const REFUSED: ReadonlySet<string> = new Set(REFUSED_HEADERS);

/**
 * Whether the lanes of `run` are raw lanes (raw-lane.ts): a direct
 * connection over HTTP or HTTPS, the tool's own head (no client fingerprint),
 * and headers that undici would write as given (the key's form and the extra
 * ones are checked when the run starts; this is the guard). Otherwise the
 * lanes are undici's (lane.ts).
 */
export function rawRoute(run: Pick<LoadRun, 'baseUrl' | 'authorization' | 'connection' | 'fingerprints'>): boolean {
  const { protocol } = new URL(run.baseUrl);
  const proxy = run.connection?.proxy?.kind ?? 'none';
  const extra = Object.entries(run.connection?.headers ?? {});
  return (
    (protocol === 'http:' || protocol === 'https:') &&
    proxy === 'none' &&
    !run.fingerprints?.length &&
    VALUE.test(run.authorization) &&
    extra.every(
      ([name, value]) => TOKEN.test(name) && !REFUSED.has(name.toLowerCase()) && name.toLowerCase() !== 'content-type' && VALUE.test(value),
    )
  );
}

/** Prepares the mix for sending below `baseUrl`'s path, as the tool and as each client of `fingerprints`. */
export function prepare(
  run: Pick<LoadRun, 'baseUrl' | 'requests' | 'authorization' | 'connection' | 'fingerprints' | 'clients'>,
): Prepared[] {
  const { shapes, apps } = run.clients ?? FIXED_CLIENTS;
  const base = new URL(run.baseUrl);
  const raw = rawRoute(run);
  return run.requests.map((request, n) => {
    const body = request.body === undefined ? null : Buffer.from(request.body);
    // As few headers as a client needs (each costs the target too): the extra ones asked for (-H), the key, and the body's type.
    const headers = {
      ...run.connection?.headers,
      ...(request.authProbe ? {} : { authorization: run.authorization }),
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const options = { origin: base.origin, method: request.method, path: requestPath(base, request.path), headers, body };
    const as: Partial<Record<FingerprintId, Dispatcher.DispatchOptions>> = {};
    for (const id of run.fingerprints ?? []) {
      // As the client's application writes the call. A lane keeps its connection whatever the client (curl's closes
      // after each call elsewhere): load measures the target, and a connection per request cut throughput 3.7x and
      // ran a remote target's client ports out in seconds.
      const own = asWritten({ ...request, headers }, apps?.[id], n);
      const bytes = own.body === undefined ? null : Buffer.from(own.body);
      as[id] = {
        ...options,
        path: requestPath(base, own.path),
        headers: { ...fingerprintHeaders(shapes[id], base.origin, bytes !== null && bytes.length > 0), ...own.headers },
        body: bytes,
      };
    }
    const bytes = raw && PATH.test(options.path) ? encodeRequest({ ...options, headers }, base.host) : undefined;
    return { request, options, ...(run.fingerprints?.length ? { as } : {}), ...(bytes ? { raw: bytes } : {}) };
  });
}

/** A lane of a run: undici's (lane.ts) or raw (raw-lane.ts), see {@link rawRoute}. */
export type SenderLane = Lane | RawLane;

/**
 * Tunnels the proxy may fail in a row (refused, reset, closed on CONNECT:
 * each after a few CONNECTs at most) before the lanes open no more; any other
 * outcome in between starts the count again.
 */
export const PROXY_FAILURES_IN_A_ROW = 3;

/**
 * Lanes of a run with the sweep that enforces each request's whole deadline,
 * and the count of tunnels the proxy failed in a row.
 */
export class Lanes {
  readonly all: SenderLane[] = [];
  readonly #options: LaneOptions;
  readonly #sweep: NodeJS.Timeout;
  #proxyFailures = 0;
  #proxyFailed: string | undefined;
  #closed = false;

  constructor(
    run: Pick<LoadRun, 'baseUrl' | 'timeoutMs' | 'maxBodyBytes' | 'connection' | 'signal' | 'fingerprints' | 'clients'> &
      Partial<Pick<LoadRun, 'authorization'>>,
    count: number,
  ) {
    this.#options = {
      origin: new URL(run.baseUrl).origin,
      timeoutMs: run.timeoutMs,
      maxBodyBytes: run.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      ...(run.connection ? { connection: run.connection } : {}),
      ...(run.signal ? { signal: run.signal } : {}),
      ended: (failure) => this.#ended(failure),
    };
    const clients = run.fingerprints ?? [];
    if (run.authorization !== undefined && rawRoute({ ...run, authorization: run.authorization })) {
      const tls = tlsOptions(run.connection ?? {});
      for (let i = 0; i < count; i++) this.all.push(new RawLane({ ...this.#options, tls }));
    } else
      for (let i = 0; i < count; i++)
        this.all.push(
          new Lane({
            ...this.#options,
            ...(clients.length > 0 ? { fingerprint: clients[i % clients.length]!, shapes: (run.clients ?? FIXED_CLIENTS).shapes } : {}),
          }),
        );
    const every = Math.max(10, Math.min(100, run.timeoutMs / 10));
    // Deadlines as they stood when the timer ran, swept after the loop's next read of its sockets (an immediate runs
    // after the poll phase, a timer before it): an answer that came while the generator's loop was stalled past a
    // deadline is read as the answer it is, never counted as the target's timeout because the generator woke to its
    // timers first, or stalled between its timer and the sweep.
    this.#sweep = setInterval(() => {
      const now = performance.now();
      setImmediate(() => {
        if (this.#closed) return;
        for (const lane of this.all) lane.sweep(now, run.timeoutMs);
      });
    }, every);
    this.#sweep.unref();
  }

  /**
   * Set once the proxy failed {@link PROXY_FAILURES_IN_A_ROW} tunnels in a
   * row: why, in one sentence naming the proxy (never the target). The
   * runners then send nothing more.
   */
  get proxyFailed(): string | undefined {
    return this.#proxyFailed;
  }

  #ended(failure: TransportError | undefined): void {
    if (!failure) {
      this.#proxyFailures = 0;
      return;
    }
    if (++this.#proxyFailures < PROXY_FAILURES_IN_A_ROW) return;
    this.#proxyFailed ??= `the proxy failed ${this.#proxyFailures} tunnels in a row, so no more were opened (the last: ${failure.message})`;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweep);
    await Promise.all(this.all.map((lane) => lane.close()));
  }

  /** Stops every lane at once (an interrupted run): requests in flight are aborted and not counted. */
  drop(): void {
    for (const lane of this.all) lane.drop();
  }
}
