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
import { type Decoding, decodeBody } from './decode.js';
import { InvalidBaseUrlError, type TransportError, transportErrorFrom } from './errors.js';
import { type Json, decodeUtf8, JsonTooLargeError, parseJson } from './json.js';
import { LoopStalls } from './loop-stall.js';
import { DEFAULT_REQUEST_HEADERS } from './request-headers.js';
import { FINGERPRINTS, type FingerprintId } from './fingerprints.js';
import { setting, wording } from './wording.js';


export type Method = 'GET' | 'POST';

/** A request relative to the base URL (`/pets?limit=5`). */
export interface RequestSpec {
  method: Method;
  /** Path and query relative to the base URL, starting with `/`. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /**
   * Sent on a new connection of its own, closed after it: a request sent again
   * after a connection it was sent on was closed under it ({@link closedWhenIdle}).
   * A recorded transcript ignores it.
   */
  fresh?: boolean;
  /**
   * The client shape it is sent under (core/fingerprints.ts): that client's
   * headers, header order and casing, and connection habit. Default: the
   * run's choice (the tool's own shape unless the run was given fingerprints).
   */
  fingerprint?: FingerprintId;
}

/** A response as received; `body` is at most `maxBodyBytes` long. */
export interface ResponseRecord {
  status: number;
  /** Header names in lower case; repeated headers joined with `, ` (`set-cookie` kept apart). */
  headers: Record<string, string>;
  body: Uint8Array;
  /** True when the body was longer than the bound and the rest was not read. */
  truncated: boolean;
  /** Set when the body came with a content coding: `body` is then the decoded bytes (core/decode.ts). */
  decoding?: Decoding;
}

/** One request and what came back: a response, or the reason there was none. */
export interface Exchange {
  /** Order of sending within the run, from 1. */
  seq: number;
  request: { method: Method; url: string; headers: Record<string, string>; body?: Uint8Array };
  response?: ResponseRecord;
  error?: TransportError;
  durationMs: number;
}

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
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const BASE_URL = setting('baseUrl');

/**
 * Parses and checks a base URL: absolute, http or https, no credentials, no
 * query or fragment. The trailing slash is dropped so `/pets` appends cleanly.
 */
export function parseBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidBaseUrlError(wording`${BASE_URL} "${withoutUserinfo(text)}" is not an absolute URL; write it with its scheme, e.g. http://127.0.0.1:8080/v1`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    // The scheme is not shown: without "//", "user:password@host" parses as scheme "user".
    throw new InvalidBaseUrlError(wording`${BASE_URL} must use http or https; write it as http://host:port/path, e.g. http://127.0.0.1:8080/v1`);
  }
  if (url.username || url.password) throw new InvalidBaseUrlError(wording`${BASE_URL} must not carry credentials; pass the key with ${setting('apiKey')}`);
  if (url.search || url.hash) throw new InvalidBaseUrlError(wording`${BASE_URL} must not have a query or fragment`);
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/** A URL as given, for messages: everything before its last "@" after the scheme (user and password) left out, at most 200 characters. */
function withoutUserinfo(text: string): string {
  const shown = text.replace(/^([^/?#@]*?\/\/)?.*@/s, (_match, scheme: string | undefined) => `${scheme ?? ''}…@`).replace(/[\u0000-\u001f\u007f]/g, '?');
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
}

/**
 * The path a request goes to: the base URL's path (without its trailing
 * slash; a URL's path is never empty, so `http://h/` has `/`) joined with the
 * request's (`/pets`). Never `//pets`.
 */
export function requestPath(base: URL, path: string): string {
  return `${base.pathname.replace(/\/+$/, '')}${path}`;
}

/** The base URL as the suite names it: origin and path, no trailing slash, no credentials. */
export function targetOf(base: URL): string {
  return `${base.origin}${requestPath(base, '')}`;
}

/** What the engine sends requests through: the HTTP client, or (to recompute verdicts) a recorded transcript. */
export interface Transport {
  send(spec: RequestSpec): Promise<Exchange>;
  /** Requests sent so far. */
  readonly requestsSent: number;
  close(): Promise<void>;
}

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
    this.#proxy = proxy?.kind === 'url' ? shownProxy(proxy.url) : proxy?.kind === 'env' ? shownProxy((this.baseUrl.protocol === 'https:' ? proxy.httpsProxy : '') || proxy.httpProxy) : undefined;
    this.#mayWantCertificate = this.baseUrl.protocol === 'https:' && !options.cert;
    this.#ownStalls = !options.stalls;
    this.#stalls = options.stalls ?? new LoopStalls();
    this.#connect = options;
    this.#pool = openDispatcher(this.#origin, options, { timeoutMs: options.timeoutMs, connections: this.#connections, keepAliveTimeout: 4_000, ...(options.signal ? { signal: options.signal } : {}) }, this.#route);
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
    // The extra headers (-H) after the defaults, the request's own after them: a check's headers are what it tests.
    const headers: Record<string, string> = { ...DEFAULT_REQUEST_HEADERS, ...(spec.fingerprint ? { 'user-agent': FINGERPRINTS[spec.fingerprint].userAgent } : {}), ...this.#extraHeaders, ...spec.headers };
    const body = typeof spec.body === 'string' ? new TextEncoder().encode(spec.body) : spec.body;
    const url = this.urlOf(spec.path);
    const exchange: Exchange = { seq, request: { method: spec.method, url, headers, ...(body ? { body } : {}) }, durationMs: 0 };
    const started = performance.now();
    // When the deadline comes due, on the stall monitor's clock (which is asked about it).
    const due = this.#stalls.now() + this.#timeoutMs;
    // A timer of our own, not AbortSignal.timeout: Node 20's AbortSignal.any holds its sources weakly, and a collected
    // timeout signal never fires (nodejs/node#57736), which left a dripping body unbounded.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException(`no complete response within ${this.#timeoutMs} ms`, 'TimeoutError')), this.#timeoutMs);
    const dispatcher = spec.fresh ? openDispatcher(this.#origin, this.#connect, { timeoutMs: this.#timeoutMs, connections: 1, ...(this.#signal ? { signal: this.#signal } : {}) }, this.#route) : this.#pool;
    try {
      const response = await dispatcher.request({
        origin: this.#origin,
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
        ? { status: response.statusCode, headers: responseHeaders, body: decoded.body, truncated: decoded.truncated, decoding: decoded.decoding }
        : { status: response.statusCode, headers: responseHeaders, body: bytes, truncated };
    } catch (error) {
      let failure = transportErrorFrom(error, url, this.#timeoutMs);
      // The keep-alive race (core/connection.ts connectionFailure): said in the message, so a transcript replays the same decision.
      const closed = connectionFailure(error);
      if (failure.code === 'PC_ERR_PROTOCOL' && closed && closed.earlier > 0 && closed.answerBytes === 0) {
        failure = failure.noted(`(${IDLE_CLOSE} after ${closed.earlier} earlier ${closed.earlier === 1 ? 'request' : 'requests'}${closed.endedBeforeWrite ? `; ${ENDED_FIRST}` : ''})`);
      }
      // The deadline (ours, or undici's of the same length) came due at `due`: was the loop running then?
      const stalled = failure.code === 'PC_ERR_TIMEOUT' ? this.#stalls.stalledAt(due) : 0;
      if (stalled > 0) failure = failure.noted(`(${STALLED} ${stalled} ms when the deadline came due: an answer may have come and not been read in time)`);
      // A failure of the proxy's own connection names the proxy already (core/tunnel.ts); any other through a proxy may
      // be the tunnel's as much as the target's: say which way the request went.
      if (this.#route.proxied && this.#proxy && failure.proxy === undefined) exchange.error = failure.noted(`(through the proxy ${this.#proxy})`);
      else if (failure.proxy !== undefined) exchange.error = failure;
      // A TLS server that wants a client certificate often just closes the connection when it gets none.
      else if (this.#mayWantCertificate && failure.code === 'PC_ERR_PROTOCOL' && failure.message.endsWith('(UND_ERR_SOCKET)')) exchange.error = failure.noted('(if the server requires a client certificate: give one, with its key)');
      else exchange.error = failure;
    } finally {
      clearTimeout(timer);
      if (dispatcher !== this.#pool) await dispatcher.destroy().catch(() => {});
    }
    exchange.durationMs = performance.now() - started;
    this.#onExchange?.(exchange);
    return exchange;
  }

  async close(): Promise<void> {
    if (this.#ownStalls) this.#stalls.stop();
    await this.#pool.destroy();
  }
}

const STALLED = "the suite's own event loop was stalled for";
const IDLE_CLOSE = 'on a reused connection, closed before any byte of the answer';
const ENDED_FIRST = 'the server had ended the connection before the request was written';

/**
 * Whether the request that failed with `error` failed on a connection that
 * had carried earlier requests, before any byte of its answer came: the
 * server may have closed the connection as idle while the request went out
 * (RFC 9112 §9.5). `not-received`: the server had ended the connection before
 * the request was written, so it never took it; `unknown`: it may have
 * received it. Undefined for any other failure. Read from the error's
 * message, so that a transcript replays the same decision.
 */
export function closedWhenIdle(error: { code: string; message: string } | undefined): 'not-received' | 'unknown' | undefined {
  if (error?.code !== 'PC_ERR_PROTOCOL' || !error.message.includes(`(${IDLE_CLOSE} after `)) return undefined;
  return error.message.includes(`; ${ENDED_FIRST})`) ? 'not-received' : 'unknown';
}
const STALLED_NOTE = /\(the suite's own event loop was stalled for (\d+) ms when the deadline came due\b/;

/**
 * How long the suite's own event loop was stalled when the deadline of the
 * request that failed with `error` came due, in ms; undefined when it was not
 * (the target had its whole deadline). Read from the error's message, so that
 * a recorded exchange (a transcript, replayed by `verify`) tells the same.
 */
export function stalledFor(error: { code: string; message: string } | undefined): number | undefined {
  if (error?.code !== 'PC_ERR_TIMEOUT') return undefined;
  const match = STALLED_NOTE.exec(error.message);
  return match ? Number(match[1]) : undefined;
}

async function readBounded(stream: AsyncIterable<Buffer> & { destroy(): void }, max: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const room = max - size;
    if (chunk.length > room) {
      chunks.push(chunk.subarray(0, room));
      size = max;
      stream.destroy();
      return { bytes: Buffer.concat(chunks, size), truncated: true };
    }
    chunks.push(chunk);
    size += chunk.length;
  }
  return { bytes: Buffer.concat(chunks, size), truncated: false };
}

function flattenHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * What a response body is, as JSON. `notParsed`: the body is too large to
 * parse (core/json.ts `MAX_JSON_TOKENS`); it is judged, as a body past the
 * read bound is, on its first `notParsed` bytes.
 */
export type BodyJson = { ok: true; value: Json } | { ok: false; reason: string; notParsed?: number };

const parsedBodies = new WeakMap<ResponseRecord, BodyJson>();

/** The response body parsed as JSON (memoised): strict UTF-8, complete, well-formed. */
export function bodyJson(response: ResponseRecord): BodyJson {
  let parsed = parsedBodies.get(response);
  if (!parsed) {
    parsed = parseBody(response);
    parsedBodies.set(response, parsed);
  }
  return parsed;
}

function parseBody(response: ResponseRecord): BodyJson {
  const coded = response.decoding;
  if (coded?.error) return { ok: false, reason: `a ${coded.coding}-coded body of ${coded.received} bytes that the suite could not decode (${coded.error})` };
  if (coded?.cut) return { ok: false, reason: `a ${coded.coding}-coded body that decodes to more than ${response.body.length} bytes (decoding stopped there)` };
  if (response.truncated) return { ok: false, reason: `a body longer than ${response.body.length} bytes (not read to its end)` };
  if (response.body.length === 0) return { ok: false, reason: 'an empty body' };
  const text = decodeUtf8(response.body);
  if (text === undefined) return { ok: false, reason: 'a body that is not valid UTF-8' };
  const json = text.replace(/^\uFEFF/, '');
  try {
    return { ok: true, value: parseJson(json) };
  } catch (error) {
    if (!(error instanceof JsonTooLargeError)) return { ok: false, reason: `a body that is not JSON (${(error as Error).message})` };
    const bom = response.body.length - Buffer.byteLength(json);
    return { ok: false, reason: `a body of ${error.message}`, notParsed: bom + Buffer.byteLength(json.slice(0, error.at)) };
  }
}
