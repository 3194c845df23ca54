/**
 * Every request the suite sends goes through {@link HttpClient}: one undici pool
 * bound to the base URL's origin (the suite talks to nothing else), a deadline
 * per request, bounded body reads, and no redirect following. A request whose
 * deadline came due while the suite's own event loop was stalled says so in
 * its error (core/loop-stall.ts, {@link stalledFor}). How it connects
 * (TLS, client certificate, proxy, extra headers, interim answers) is
 * core/connection.ts's; content codings are decoded by core/decode.ts.
 */
import type { Dispatcher } from 'undici';
import { type ConnectOptions, connectionFailure, openDispatcher, type Route, shownProxy } from './connection.js';
import { decodeBody } from './decode.js';
import { transportErrorFrom } from './errors.js';
import { LoopStalls } from './loop-stall.js';
import { sentHeaders } from './request-headers.js';
import { FINGERPRINTS, type FingerprintId, type Shapes } from './fingerprints.js';
import { parseBaseUrl, requestPath } from './http/base-url.js';
import { flattenHeaders, readBounded } from './http/body.js';
import type { Exchange, RequestSpec, Transport } from './http/exchange.js';
import { ENDED_FIRST, IDLE_CLOSE, STALLED } from './http/failure-notes.js';

// What a request and its answer are, the base URL, the body's reading and parsing, and the notes of a failure are
// modules of their own; callers import them from here.
export { parseBaseUrl, requestPath, targetOf } from './http/base-url.js';
export { type BodyJson, bodyJson } from './http/body.js';
export type { Exchange, Method, RequestSpec, ResponseRecord, Transport } from './http/exchange.js';
export { closedWhenIdle, stalledFor } from './http/failure-notes.js';

/** Options of {@link HttpClient}: where, how long, and how to connect ({@link ConnectOptions}). */
export interface HttpClientOptions extends ConnectOptions {
  /** Absolute http(s) URL; request paths are appended to its path. */
  baseUrl: string;
  /** Deadline for one whole exchange, headers and body, in ms. */
  timeoutMs: number;
  /** Bytes of a response body kept; the rest is not read. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Connections to the origin. Default 8. */
  connections?: number;
  /** Called with every finished exchange, in completion order. */
  onExchange?: (exchange: Exchange) => void;
  /** Aborts every request in flight, and each one sent after it (an interrupted run). */
  signal?: AbortSignal;
  /** Where the suite's own event loop stalled. Default: watched by the client itself, from its creation to its close. */
  stalls?: LoopStalls;
  /** The User-Agent of requests sent in the tool's own shape (no `fingerprint`). Default `petstore-conformance`. */
  userAgent?: string;
  /** Each client's shape as the run has it (core/clients.ts: versions drawn from its seed). Default {@link FINGERPRINTS}. */
  shapes?: Shapes;
  /**
   * Direct connections of the tool's own shape paced, and opened ahead when asked ({@link HttpClient.openAhead}):
   * core/connection/stock.ts. Default false: opened as requests need them, as many at once as they need.
   */
  openAhead?: boolean;
}

/** Bytes of a response body kept by default (`HttpClientOptions.maxBodyBytes`). */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** HTTP client bound to one origin. Close it when done. */
export class HttpClient implements Transport {
  readonly baseUrl: URL;
  readonly #pool: Dispatcher;
  readonly #origin: string;
  readonly #extraHeaders: Readonly<Record<string, string>>;
  readonly #signal: AbortSignal | undefined;
  readonly #route: Route = { proxied: undefined };
  readonly #proxy: string | undefined;
  /** An https target and no client certificate given. */
  readonly #mayWantCertificate: boolean;
  readonly #timeoutMs: number;
  readonly #maxBodyBytes: number;
  readonly #onExchange: ((exchange: Exchange) => void) | undefined;
  readonly #connections: number;
  /** Requests holding a connection, and those waiting for one (the deadline starts only once a request has one). */
  #active = 0;
  readonly #waiting: (() => void)[] = [];
  #seq = 0;
  readonly #stalls: LoopStalls;
  readonly #ownStalls: boolean;
  readonly #connect: ConnectOptions;
  readonly #userAgent: string | undefined;
  readonly #shapes: Shapes;
  /** One pool per client shape a request was sent under, opened with its first request. */
  readonly #shaped = new Map<FingerprintId, Dispatcher>();

  constructor(options: HttpClientOptions) {
    this.baseUrl = parseBaseUrl(options.baseUrl);
    this.#timeoutMs = options.timeoutMs;
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#onExchange = options.onExchange;
    this.#connections = options.connections ?? 8;
    this.#origin = this.baseUrl.origin;
    this.#extraHeaders = options.headers ?? {};
    this.#signal = options.signal;
    const proxy = options.proxy;
    this.#proxy =
      proxy?.kind === 'url'
        ? shownProxy(proxy.url)
        : proxy?.kind === 'env'
          ? shownProxy((this.baseUrl.protocol === 'https:' ? proxy.httpsProxy : '') || proxy.httpProxy)
          : undefined;
    this.#mayWantCertificate = this.baseUrl.protocol === 'https:' && !options.cert;
    this.#ownStalls = !options.stalls;
    this.#stalls = options.stalls ?? new LoopStalls();
    this.#connect = options;
    this.#userAgent = options.userAgent;
    this.#shapes = options.shapes ?? FINGERPRINTS;
    this.#pool = openDispatcher(
      this.#origin,
      options,
      {
        timeoutMs: options.timeoutMs,
        connections: this.#connections,
        keepAliveTimeout: 4_000,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.openAhead ? { openAhead: true } : {}),
      },
      this.#route,
    );
  }

  /**
   * Keeps `count` connections of the tool's own shape open, opening the
   * missing ones before requests need them (at most the client's
   * `connections`); those left unused for a second are closed. Only toward
   * a far target (an opening took 10 ms or more), or also a near one with
   * `evenNear` (core/connection/stock.ts). Nothing through a proxy, nor
   * without `openAhead`.
   */
  openAhead(count: number, how: { evenNear?: boolean } = {}): void {
    this.#route.stock?.openAhead(Math.min(count, this.#connections), how);
  }

  /**
   * How long the quickest connection took to open, ms, of those paced (`openAhead`); undefined before one opened, or
   * without `openAhead`: see core/connection/stock.ts `quickestMs`.
   */
  get quickestOpeningMs(): number | undefined {
    // Read on every exchange (widening): no array made for it.
    let quickest: number | undefined;
    for (const stock of this.#route.paced ?? []) {
      const ms = stock.quickestMs;
      if (ms !== undefined && (quickest === undefined || ms < quickest)) quickest = ms;
    }
    return quickest;
  }

  /** Requests sent so far. */
  get requestsSent(): number {
    return this.#seq;
  }

  /** The absolute URL of a relative request path. */
  urlOf(path: string): string {
    return `${this.baseUrl.origin}${requestPath(this.baseUrl, path)}`;
  }

  /**
   * Sends one request. Never throws for a target's behaviour: failures are in
   * `exchange.error`. The deadline starts when the request has a connection of
   * its own, not while it waits for one: the suite's own queueing never reads
   * as the target's slowness.
   */
  async send(spec: RequestSpec): Promise<Exchange> {
    // A finished request hands its connection straight to the next waiting one.
    if (this.#active < this.#connections) this.#active++;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      return await this.#send(spec);
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#active--;
    }
  }

  async #send(spec: RequestSpec): Promise<Exchange> {
    const seq = ++this.#seq;
    const body = typeof spec.body === 'string' ? new TextEncoder().encode(spec.body) : spec.body;
    // The extra headers (-H) after the shape's defaults, the request's own after them: a check's headers are what it tests.
    const headers = sentHeaders({ ...spec, ...(body ? { body } : {}) }, this.#origin, this.#extraHeaders, this.#userAgent, this.#shapes);
    const fingerprint = spec.fingerprint === undefined ? undefined : this.#shapes[spec.fingerprint];
    const url = this.urlOf(spec.path);
    const exchange: Exchange = { seq, request: { method: spec.method, url, headers, ...(body ? { body } : {}) }, durationMs: 0 };
    const started = performance.now();
    // When the deadline comes due, on the stall monitor's clock (which is asked about it).
    const due = this.#stalls.now() + this.#timeoutMs;
    // A timer of our own, not AbortSignal.timeout: Node 20's AbortSignal.any holds its sources weakly, and a collected
    // timeout signal never fires (nodejs/node#57736), which left a dripping body unbounded.
    const deadline = new AbortController();
    const timer = setTimeout(
      () => deadline.abort(new DOMException(`no complete response within ${this.#timeoutMs} ms`, 'TimeoutError')),
      this.#timeoutMs,
    );
    // undici hands a kept-alive connection to the next request only a loop turn after its answer ended (to see the
    // server close it first): one sent sooner, as a check's next step, would open another connection, a round trip more.
    // The deadline runs meanwhile: a loop held before that turn is the suite's stall, and said so.
    if (!spec.fresh) await new Promise<void>((resolve) => setImmediate(resolve));
    const dispatcher = spec.fresh
      ? openDispatcher(
          this.#origin,
          this.#connect,
          {
            timeoutMs: this.#timeoutMs,
            connections: 1,
            ...(this.#signal ? { signal: this.#signal } : {}),
            ...(fingerprint ? { fingerprint } : {}),
          },
          this.#route,
        )
      : spec.fingerprint === undefined
        ? this.#pool
        : this.#shapedPool(spec.fingerprint);
    try {
      const response = await dispatcher.request({
        origin: this.#origin,
        // A client that opens a connection for each request (curl run once per call): undici closes it after the answer.
        ...(fingerprint?.connection === 'close-each' ? { reset: true } : {}),
        method: spec.method,
        path: requestPath(this.baseUrl, spec.path),
        headers,
        body: body === undefined ? null : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        signal: this.#signal ? AbortSignal.any([deadline.signal, this.#signal]) : deadline.signal,
      });
      const { bytes, truncated } = await readBounded(response.body, this.#maxBodyBytes);
      const responseHeaders = flattenHeaders(response.headers);
      const decoded = await decodeBody(bytes, responseHeaders['content-encoding'], this.#maxBodyBytes, truncated);
      exchange.response = decoded
        ? {
            status: response.statusCode,
            headers: responseHeaders,
            body: decoded.body,
            truncated: decoded.truncated,
            decoding: decoded.decoding,
          }
        : { status: response.statusCode, headers: responseHeaders, body: bytes, truncated };
    } catch (error) {
      let failure = transportErrorFrom(error, url, this.#timeoutMs);
      // The keep-alive race (core/connection.ts connectionFailure): said in the message, so a transcript replays the same decision.
      const closed = connectionFailure(error);
      if (failure.code === 'PC_ERR_PROTOCOL' && closed && closed.earlier > 0 && closed.answerBytes === 0) {
        failure = failure.noted(
          `(${IDLE_CLOSE} after ${closed.earlier} earlier ${closed.earlier === 1 ? 'request' : 'requests'}${closed.endedBeforeWrite ? `; ${ENDED_FIRST}` : ''})`,
        );
      }
      // The deadline (ours, or undici's of the same length) came due at `due`: was the loop running then?
      const stalled = failure.code === 'PC_ERR_TIMEOUT' ? this.#stalls.stalledAt(due) : 0;
      if (stalled > 0)
        failure = failure.noted(`(${STALLED} ${stalled} ms when the deadline came due: an answer may have come and not been read in time)`);
      // A failure of the proxy's own connection names the proxy already (core/tunnel.ts); any other through a proxy may
      // be the tunnel's as much as the target's: say which way the request went.
      if (this.#route.proxied && this.#proxy && failure.proxy === undefined)
        exchange.error = failure.noted(`(through the proxy ${this.#proxy})`);
      else if (failure.proxy !== undefined) exchange.error = failure;
      // A TLS server that wants a client certificate often just closes the connection when it gets none.
      else if (this.#mayWantCertificate && failure.code === 'PC_ERR_PROTOCOL' && failure.message.endsWith('(UND_ERR_SOCKET)'))
        exchange.error = failure.noted('(if the server requires a client certificate: give one, with its key)');
      else exchange.error = failure;
    } finally {
      clearTimeout(timer);
      if (spec.fresh) await dispatcher.destroy().catch(() => {});
    }
    exchange.durationMs = performance.now() - started;
    this.#onExchange?.(exchange);
    return exchange;
  }

  /** The pool of requests sent under `id`'s shape (core/connection.ts `DispatcherShape.fingerprint`), opened the first time. */
  #shapedPool(id: FingerprintId): Dispatcher {
    let pool = this.#shaped.get(id);
    if (!pool) {
      pool = openDispatcher(
        this.#origin,
        this.#connect,
        {
          timeoutMs: this.#timeoutMs,
          connections: this.#connections,
          keepAliveTimeout: 4_000,
          ...(this.#signal ? { signal: this.#signal } : {}),
          fingerprint: this.#shapes[id],
        },
        this.#route,
      );
      this.#shaped.set(id, pool);
    }
    return pool;
  }

  async close(): Promise<void> {
    if (this.#ownStalls) this.#stalls.stop();
    for (const stock of this.#route.paced ?? []) stock.close();
    await Promise.all([this.#pool, ...this.#shaped.values()].map((pool) => pool.destroy()));
  }
}
