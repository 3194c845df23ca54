/**
 * One lane of the suite's load sender (sender.ts): one connection, an undici
 * dispatcher of its own with `pipelining: 1`, so at most one request is on it
 * at a time and each response is paired with its request by construction (the
 * dispatch handler that receives it, {@link Exchange}, is the request's own).
 * Each lane connects as core/connection.ts says, like the functional client:
 * TLS verified unless `insecure` was asked for (with the extra `ca`), the
 * client certificate, the proxy, the extra headers, interim answers skipped.
 *
 * Deadlines start when a request is written to its connection (undici calls
 * `onConnect` then), not when it is queued: undici's headersTimeout and
 * bodyTimeout guard each wait, and the lanes' sweep (sender.ts `Lanes`)
 * enforces the whole deadline through {@link Lane.sweep} (a body dripping in
 * slowly resets bodyTimeout at every chunk).
 *
 * The hot path allocates little: response headers are parsed and body chunks
 * kept only for the responses that are sampled; the rest are read and dropped.
 * Interim 1xx answers are skipped (RFC 9110 §15.2): undici parses 103 and the
 * like and passes them to `onHeaders`, where they are ignored; an unsolicited
 * `100 Continue`, which undici would refuse, never reaches it (the lane's
 * connections filter it out, see core/connection.ts).
 *
 * **Client shapes.** A lane given a fingerprint (core/fingerprints.ts) speaks
 * as that client: its connection writes every head in that client's order and
 * casing (core/connection.ts `DispatcherShape.fingerprint`), and each request
 * carries that client's own headers (User-Agent…), prepared once per client.
 * A lane keeps its connection whatever the client's habit (curl too, as curl
 * does with several URLs in one call): a new connection for every request
 * would measure the suite's connects, and run a busy profile out of local
 * ports.
 */
import type { Dispatcher } from 'undici';
import { type ConnectOptions, openDispatcher } from '../../core/connection.js';
import type { Decoding } from '../../core/decode.js';
import { TransportError } from '../../core/errors.js';
import { FINGERPRINTS, type FingerprintId, type Shapes } from '../../core/fingerprints.js';
import type { MixRequest } from './mix.js';

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

/** A request of the mix, prepared once: undici's dispatch options are reused for every send of it. */
export interface Prepared {
  request: MixRequest;
  options: Dispatcher.DispatchOptions;
  /** The same request as each client of the run sends it (its own headers first). */
  as?: Partial<Record<FingerprintId, Dispatcher.DispatchOptions>>;
  /** The bytes a raw lane writes (raw-lane.ts), as undici would write them; absent when undici would refuse the request. */
  raw?: Buffer;
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
    const sampled = chunks
      ? {
          headers: this.#raw ? headersOf(this.#raw) : {},
          body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.#size),
          truncated: this.#truncated,
          ...(this.#wanted ? {} : { errorOnly: true as const }),
        }
      : undefined;
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
  /** Each client's shape as the run has it (core/clients.ts). Default: core/fingerprints.ts. */
  shapes?: Shapes;
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
    const shape = options.fingerprint === undefined ? {} : { fingerprint: (options.shapes ?? FINGERPRINTS)[options.fingerprint] };
    // One connection (an undici Client, pipelining 1), or, through a proxy, an agent whose one pool is such a Client.
    this.#client = openDispatcher(options.origin, options.connection ?? {}, {
      timeoutMs: options.timeoutMs,
      connections: 1,
      ...(options.signal ? { signal: options.signal } : {}),
      ...shape,
    });
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
