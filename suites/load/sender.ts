/**
 * The suite's own load sender, on undici: one {@link Lane} per connection, an
 * undici `Client` of its own with `pipelining: 1`, so at most one request is on
 * a connection at a time and each response is paired with its request by
 * construction (the dispatch handler that receives it is the request's own).
 * Both runners use it: the closed loop (closed.ts), where each lane sends its
 * next request as soon as its last one is answered, and the fixed rate
 * (paced.ts), where a due request takes an idle lane.
 *
 * Deadlines start when a request is written to its connection (undici calls
 * `onConnect` then), not when it is queued: undici's headersTimeout and
 * bodyTimeout guard each wait, and a sweep over the lanes enforces the whole
 * deadline (a body dripping in slowly resets bodyTimeout at every chunk).
 * Each lane connects as core/connection.ts says, like the functional client:
 * TLS verified unless `insecure` was asked for (with the extra `ca`), the
 * client certificate, the proxy, the extra headers, interim answers skipped.
 *
 * The hot path allocates little: requests are prepared once (path, headers,
 * body bytes), response headers are parsed and body chunks kept only for the
 * responses that are sampled; the rest are read and dropped. Interim 1xx
 * answers are skipped (RFC 9110 §15.2): undici parses 103 and the like and
 * passes them to `onHeaders`, where they are ignored; an unsolicited
 * `100 Continue`, which undici would refuse, never reaches it (the lane's
 * connections filter it out, see core/connection.ts).
 *
 * **Client shapes.** In a run given fingerprints (core/fingerprints.ts), lane
 * i speaks as the i-th of them in turn: its connection writes every head in
 * that client's order and casing (core/connection.ts `DispatcherShape.fingerprint`),
 * and each request carries that client's own headers (User-Agent…), prepared
 * once per client. A lane keeps its connection whatever the client's habit
 * (curl too, as curl does with several URLs in one call): a new connection for
 * every request would measure the suite's connects, and run a busy profile
 * out of local ports.
 *
 * Through a proxy, each lane's tunnel takes a few CONNECTs at most
 * (core/tunnel.ts), and a lane whose tunnel failed tries again with its next
 * request. A proxy that fails every tunnel would so be asked for CONNECTs for
 * the profile's whole length (three per request: 15,000 for 5,000 requests):
 * once it failed {@link PROXY_FAILURES_IN_A_ROW} tunnels in a row, the lanes
 * say so ({@link Lanes.proxyFailed}) and the runners open no more.
 */
import type { Dispatcher } from 'undici';
import { type ConnectOptions, openDispatcher } from '../../core/connection.js';
import type { Decoding } from '../../core/decode.js';
import { TransportError } from '../../core/errors.js';
import { FINGERPRINTS, type FingerprintId } from '../../core/fingerprints.js';
import { DEFAULT_MAX_BODY_BYTES } from '../../core/http.js';
import { fingerprintHeaders } from '../../core/request-head.js';
import type { MixRequest } from './mix.js';
import { requestPath } from '../../core/http.js';

/** A response the conformance-under-load check judges: a sampled response with its request. */
export interface Observed extends Sampled {
  request: MixRequest;
  status: number;
  latencyUs: number;
}

/** Why a request got no response. */
export type FailureKind = 'timeouts' | 'socketErrors';

/** What is kept of a sampled response besides its status. */
export interface Sampled {
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The body bytes as received, at most the run's read bound (`maxBodyBytes`). */
  body: Uint8Array;
  /** The body was longer than what was kept. */
  truncated: boolean;
  /** Set once a coded body was decoded (core/decode.ts). */
  decoding?: Decoding;
  /** Kept because its status is 4xx/5xx, not because it was sampled: judged by the response checks alone. */
  errorOnly?: true;
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

/** A request of the mix, prepared once: undici's dispatch options are reused for every send of it. */
export interface Prepared {
  request: MixRequest;
  options: Dispatcher.DispatchOptions;
  /** The same request as each client of the run sends it (its own headers first). */
  as?: Partial<Record<FingerprintId, Dispatcher.DispatchOptions>>;
}

/** Prepares the mix for sending below `baseUrl`'s path, as the tool and as each client of `fingerprints`. */
export function prepare(run: Pick<LoadRun, 'baseUrl' | 'requests' | 'authorization' | 'connection' | 'fingerprints'>): Prepared[] {
  const base = new URL(run.baseUrl);
  return run.requests.map((request) => {
    const body = request.body === undefined ? null : Buffer.from(request.body);
    // As few headers as a client needs (each costs the target too): the extra ones asked for (-H), the key, and the body's type.
    const headers = {
      ...run.connection?.headers,
      ...(request.authProbe ? {} : { authorization: run.authorization }),
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
    };
    const options = { origin: base.origin, method: request.method, path: requestPath(base, request.path), headers, body };
    const as: Partial<Record<FingerprintId, Dispatcher.DispatchOptions>> = {};
    for (const id of run.fingerprints ?? []) as[id] = { ...options, headers: { ...fingerprintHeaders(FINGERPRINTS[id], base.origin, body !== null && body.length > 0), ...headers } };
    return { request, options, ...(run.fingerprints?.length ? { as } : {}) };
  });
}

/** Is told how each request on its lane ended: a response (any status), or a failure. */
export interface LaneUser {
  answered(status: number, sampled: Sampled | undefined): void;
  failed(kind: FailureKind): void;
}

/** The deadline of a request ran out (the sweep's abort reason). */
class DeadlineError extends Error {
  readonly code = 'PC_LOAD_DEADLINE';
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'PC_LOAD_DEADLINE']);

/**
 * Tunnels the proxy may fail in a row (refused, reset, closed on CONNECT:
 * each after a few CONNECTs at most) before the lanes open no more; any other
 * outcome in between starts the count again.
 */
export const PROXY_FAILURES_IN_A_ROW = 3;

/** Which failure an undici error is. */
export function failureOf(error: unknown): FailureKind {
  return TIMEOUT_CODES.has((error as { code?: string } | undefined)?.code ?? '') ? 'timeouts' : 'socketErrors';
}

/**
 * One request on a lane: undici's dispatch handler for it. (undici's older
 * handler interface: raw headers, no controller object and no parsed header
 * object per response, so the hot path allocates least.)
 */
class Exchange implements Dispatcher.DispatchHandler {
  /** When undici wrote the request to the connection (0 until then). */
  writtenAt = 0;
  #abort: ((error?: Error) => void) | undefined;
  #status = 0;
  #raw: Buffer[] | undefined;
  #chunks: Buffer[] | undefined;
  #size = 0;
  #truncated = false;
  #ended = false;

  readonly #lane: Lane;
  readonly #wanted: boolean;
  readonly #maxBodyBytes: number;

  constructor(lane: Lane, wanted: boolean, maxBodyBytes: number) {
    this.#lane = lane;
    this.#wanted = wanted;
    this.#maxBodyBytes = maxBodyBytes;
    if (wanted) this.#chunks = [];
  }

  onConnect(abort: (error?: Error) => void): void {
    this.#abort = abort;
    this.writtenAt = performance.now();
  }

  onHeaders(statusCode: number, headers: Buffer[]): boolean {
    // Interim answers (100, 103…): the final answer follows.
    if (statusCode < 200) return true;
    this.#status = statusCode;
    // An error answer is kept whether sampled or not: under a shedder the few non-2xx answers are the ones a sample
    // misses (a 2 % share of HTML 503 pages), and each costs one bounded read and one cheap judgement.
    if (this.#wanted || statusCode >= 400) {
      this.#raw = headers;
      this.#chunks ??= [];
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    const chunks = this.#chunks;
    if (chunks && !this.#truncated) {
      const room = this.#maxBodyBytes - this.#size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        this.#size += room;
        this.#truncated = true;
      } else {
        chunks.push(chunk);
        this.#size += chunk.length;
      }
    }
    return true;
  }

  onComplete(): void {
    if (this.#ended) return;
    this.#ended = true;
    const chunks = this.#chunks;
    const sampled = chunks ? { headers: this.#raw ? headersOf(this.#raw) : {}, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size), truncated: this.#truncated, ...(this.#wanted ? {} : { errorOnly: true as const }) } : undefined;
    this.#lane.answered(this, this.#status, sampled);
  }

  onError(error: Error): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#lane.failed(this, failureOf(error), error instanceof TransportError && error.proxy !== undefined ? error : undefined);
  }

  /** Aborts the request when its deadline ran out: it ends as a timeout. */
  expire(): void {
    if (!this.#ended) this.#abort?.(new DeadlineError('the deadline ran out'));
  }
}

/** Raw header pairs as one lower-cased record; repeated headers joined with `, `. */
function headersOf(raw: Buffer[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}

/** Options every lane of a run shares. */
export interface LaneOptions {
  origin: string;
  timeoutMs: number;
  /** Bytes of a sampled body kept, at most. */
  maxBodyBytes: number;
  connection?: ConnectOptions;
  /** The run's interruption: no tunnel through a proxy is opened or tried again once it fired. */
  signal?: AbortSignal;
  /** Told how each request ended: `proxyFailure` when the proxy failed its tunnel (then `undefined` for any other end). */
  ended?: (proxyFailure: TransportError | undefined) => void;
  /** The client this lane speaks as. Default: the tool. */
  fingerprint?: FingerprintId;
}

/** One connection, one request at a time; `user` is told how each ended. */
export class Lane {
  readonly #client: Dispatcher;
  #current: Exchange | undefined;
  /** Set when the run was stopped: whatever ends now is not reported. */
  #dropped = false;
  user: LaneUser | undefined;
  readonly #maxBodyBytes: number;
  readonly #ended: LaneOptions['ended'];
  readonly #fingerprint: FingerprintId | undefined;

  constructor(options: LaneOptions) {
    this.#maxBodyBytes = options.maxBodyBytes;
    this.#ended = options.ended;
    this.#fingerprint = options.fingerprint;
    const shape = options.fingerprint === undefined ? {} : { fingerprint: FINGERPRINTS[options.fingerprint] };
    // One connection (an undici Client, pipelining 1), or, through a proxy, an agent whose one pool is such a Client.
    this.#client = openDispatcher(options.origin, options.connection ?? {}, { timeoutMs: options.timeoutMs, connections: 1, ...(options.signal ? { signal: options.signal } : {}), ...shape });
  }

  /**
   * Sends `prepared`; `user` is told once how it ended (never synchronously
   * from within this call). Keeps headers and body only when `wanted`.
   */
  send(prepared: Prepared, wanted: boolean): void {
    const exchange = new Exchange(this, wanted, this.#maxBodyBytes);
    this.#current = exchange;
    this.#client.dispatch((this.#fingerprint !== undefined && prepared.as?.[this.#fingerprint]) || prepared.options, exchange);
  }

  /** Called by the exchange when its answer is complete. (Inside undici's parser: the next send on this lane is written after it returns.) */
  answered(exchange: Exchange, status: number, sampled: Sampled | undefined): void {
    if (exchange !== this.#current || this.#dropped) return;
    this.#current = undefined;
    this.#ended?.(undefined);
    this.user!.answered(status, sampled);
  }

  /** Called by the exchange when it failed; `proxyFailure` when the proxy failed its tunnel. */
  failed(exchange: Exchange, kind: FailureKind, proxyFailure?: TransportError): void {
    if (exchange !== this.#current || this.#dropped) return;
    this.#current = undefined;
    this.#ended?.(proxyFailure);
    // A failure can be reported from inside dispatch(): hand it over on the next turn, never recursively.
    const user = this.user!;
    setImmediate(() => user.failed(kind));
  }

  /** Aborts the request on this lane if it was written more than `timeoutMs` before `now`. */
  sweep(now: number, timeoutMs: number): void {
    const exchange = this.#current;
    if (exchange && exchange.writtenAt > 0 && now - exchange.writtenAt >= timeoutMs) exchange.expire();
  }

  async close(): Promise<void> {
    await this.#client.destroy();
  }

  /** Stops the lane at once: the request on it is aborted, and its end is not reported. */
  drop(): void {
    this.#dropped = true;
    this.#current?.expire();
    this.#current = undefined;
  }
}

/**
 * Lanes of a run with the sweep that enforces each request's whole deadline,
 * and the count of tunnels the proxy failed in a row.
 */
export class Lanes {
  readonly all: Lane[] = [];
  readonly #options: LaneOptions;
  readonly #sweep: NodeJS.Timeout;
  #proxyFailures = 0;
  #proxyFailed: string | undefined;

  constructor(run: Pick<LoadRun, 'baseUrl' | 'timeoutMs' | 'maxBodyBytes' | 'connection' | 'signal' | 'fingerprints'>, count: number) {
    this.#options = {
      origin: new URL(run.baseUrl).origin,
      timeoutMs: run.timeoutMs,
      maxBodyBytes: run.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      ...(run.connection ? { connection: run.connection } : {}),
      ...(run.signal ? { signal: run.signal } : {}),
      ended: (failure) => this.#ended(failure),
    };
    const clients = run.fingerprints ?? [];
    for (let i = 0; i < count; i++) this.all.push(new Lane({ ...this.#options, ...(clients.length > 0 ? { fingerprint: clients[i % clients.length]! } : {}) }));
    const every = Math.max(10, Math.min(100, run.timeoutMs / 10));
    this.#sweep = setInterval(() => {
      const now = performance.now();
      for (const lane of this.all) lane.sweep(now, run.timeoutMs);
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
    clearInterval(this.#sweep);
    await Promise.all(this.all.map((lane) => lane.close()));
  }

  /** Stops every lane at once (an interrupted run): requests in flight are aborted and not counted. */
  drop(): void {
    for (const lane of this.all) lane.drop();
  }
}
