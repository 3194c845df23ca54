/**
 * A run's transcript: every exchange, one JSON line each, the key redacted
 * (`certify` writes it into the bundle), and {@link TranscriptReplayer}, a
 * {@link Transport} that answers a run's requests from a transcript instead of
 * the network (`verify` recomputes the verdicts with it). Reading the file back,
 * against its schema (spec/transcript-schema.ts), is certification/transcript.ts's.
 *
 * Bodies are stored as base64 of the redacted bytes: a body that is valid
 * UTF-8 is redacted as text; one that is not is read as Latin-1, byte for
 * byte, redacted, and kept byte for byte where nothing was replaced.
 */
import { KeyInRequestError, redactExchange, requestDigest } from './boundary.js';
import { TransportError } from './errors.js';
import type { Exchange, Method, RequestSpec, Transport } from './http.js';
import { DEFAULT_REQUEST_HEADERS } from './request-headers.js';
import type { Redactor } from './redact.js';
import { sha256 } from './hash.js';

/** The codes a transport error can have (core/errors.ts `TransportError`). */
export const TRANSPORT_ERROR_CODES = ['PC_ERR_UNREACHABLE', 'PC_ERR_TIMEOUT', 'PC_ERR_TLS', 'PC_ERR_PROTOCOL'] as const;
export type TransportErrorCode = (typeof TRANSPORT_ERROR_CODES)[number];

/** One line of transcript.jsonl (its schema: spec/transcript-schema.ts). Header values, URLs, bodies and error messages are redacted. */
export interface TranscriptEntry {
  /** Order of sending within the run, from 1. */
  seq: number;
  /** What the engine sent it for: the operation, how it authenticated, the check (`preflight`, a check id, `load.<profile>.…`). */
  meta: { operation: string; auth: string; check: string };
  /** `body`: base64 of the bytes sent; absent when there was no body. */
  request: { method: Method; url: string; headers: Record<string, string>; body?: string };
  /** `body`: base64 of the bytes received (at most the bound; `truncated` when there were more). */
  response?: { status: number; headers: Record<string, string>; body: string; truncated: boolean };
  /** Why there was no response. */
  error?: { code: TransportErrorCode; message: string };
  durationMs: number;
}

/** An exchange as the engine hands it to `onExchange`. */
export type RecordedExchange = Exchange & { meta: { operation: string; auth: string; check: string } };

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

/**
 * The transcript line of one exchange, redacted with `redactor`. The engine's
 * exchanges were redacted at the boundary already (core/boundary.ts); this
 * redacts again, which changes nothing there, so the transcript holds exactly
 * what the run judged.
 */
export function toTranscriptEntry(exchange: RecordedExchange, redactor: Redactor): TranscriptEntry {
  const { request, response, error } = redactExchange(exchange, redactor);
  return {
    seq: exchange.seq,
    meta: { operation: exchange.meta.operation, auth: exchange.meta.auth, check: exchange.meta.check },
    request: {
      method: request.method,
      url: request.url,
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: base64(request.body) }),
    },
    ...(response ? { response: { status: response.status, headers: response.headers, body: base64(response.body), truncated: response.truncated } } : {}),
    ...(error ? { error: { code: error.code as TransportErrorCode, message: error.message } } : {}),
    durationMs: Math.round(exchange.durationMs * 1000) / 1000,
  };
}

/** transcript.jsonl's text: the entries in `seq` order, one JSON line each. */
export function renderTranscript(entries: readonly TranscriptEntry[]): string {
  return [...entries].sort((a, b) => a.seq - b.seq).map((e) => `${JSON.stringify(e)}\n`).join('');
}

/** A request of the replay that no recorded exchange answers. */
export interface UnmatchedRequest {
  seq: number;
  method: Method;
  /** Path and query, relative to the base URL. */
  path: string;
  /** The Authorization header, redacted; empty when none was sent. */
  authorization: string;
}

/** Options of {@link TranscriptReplayer}. */
export interface ReplayOptions {
  /** The base URL the transcript was recorded against (its requests' URLs start with it). */
  baseUrl: string;
  /**
   * Redacts the replay's requests before they are compared with the transcript's:
   * `redactorFor(KEY_PLACEHOLDER)` when the replay runs with the placeholder as
   * its key, so `Bearer <API_KEY>` in both.
   */
  redactor: Redactor;
  /**
   * Digests of requests the run did not send because they would have carried
   * the key (core/boundary.ts): the replay's same request throws the same
   * error, so the recomputation crashes where the run did.
   */
  withheld?: ReadonlySet<string>;
}

/**
 * A {@link Transport} that answers from a transcript. A request matches a
 * recorded exchange with the same method, path and query, body bytes and
 * (redacted) Authorization header; exchanges with the same match are used
 * in `seq` order, each once. A request nothing matches gets a transport error
 * and is kept in {@link unmatched}: the replay has diverged from the run.
 */
export class TranscriptReplayer implements Transport {
  readonly #queues = new Map<string, TranscriptEntry[]>();
  readonly #entries: readonly TranscriptEntry[];
  readonly #used = new Set<number>();
  readonly #base: string;
  readonly #redactor: Redactor;
  readonly #withheld: ReadonlySet<string>;
  #seq = 0;
  /** Requests no recorded exchange answered, in order. */
  readonly unmatched: UnmatchedRequest[] = [];

  constructor(entries: readonly TranscriptEntry[], options: ReplayOptions) {
    this.#entries = [...entries].sort((a, b) => a.seq - b.seq);
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#redactor = options.redactor;
    this.#withheld = options.withheld ?? new Set();
    for (const entry of this.#entries) {
      const url = entry.request.url;
      // A URL outside the base cannot be asked for: keyed so that nothing matches it.
      const path = url.startsWith(this.#base) ? url.slice(this.#base.length) : `\u0000${url}`;
      const key = matchKey(entry.request.method, path, header(entry.request.headers, 'authorization'), entry.request.body);
      const queue = this.#queues.get(key);
      if (queue) queue.push(entry);
      else this.#queues.set(key, [entry]);
    }
  }

  get requestsSent(): number {
    return this.#seq;
  }

  /** Recorded exchanges no request of the replay asked for, in `seq` order. */
  unused(): TranscriptEntry[] {
    return this.#entries.filter((e) => !this.#used.has(e.seq));
  }

  async send(spec: RequestSpec): Promise<Exchange> {
    if (this.#withheld.size > 0) {
      const digest = requestDigest(spec);
      if (this.#withheld.has(digest)) throw new KeyInRequestError(digest);
    }
    const seq = ++this.#seq;
    const headers: Record<string, string> = { ...DEFAULT_REQUEST_HEADERS, ...spec.headers };
    const body = typeof spec.body === 'string' ? new TextEncoder().encode(spec.body) : spec.body;
    const url = `${this.#base}${spec.path}`;
    const exchange: Exchange = { seq, request: { method: spec.method, url, headers, ...(body ? { body } : {}) }, durationMs: 0 };
    const path = this.#redactor.redact(spec.path);
    const authorization = this.#redactor.redact(header(headers, 'authorization'));
    const key = matchKey(spec.method, path, authorization, body === undefined ? undefined : base64(this.#redactor.redactBytes(body)));
    const entry = this.#queues.get(key)?.shift();
    if (!entry) {
      this.unmatched.push({ seq, method: spec.method, path, authorization });
      exchange.error = new TransportError('PC_ERR_PROTOCOL', `${spec.method} ${path} is not in the transcript (the replay diverged from the recorded run)`);
      return exchange;
    }
    this.#used.add(entry.seq);
    exchange.durationMs = entry.durationMs;
    if (entry.response) exchange.response = { status: entry.response.status, headers: { ...entry.response.headers }, body: Buffer.from(entry.response.body, 'base64'), truncated: entry.response.truncated };
    else if (entry.error) exchange.error = new TransportError(entry.error.code, entry.error.message);
    return exchange;
  }

  async close(): Promise<void> {}
}

function header(headers: Record<string, string>, name: string): string {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return '';
}

function matchKey(method: string, path: string, authorization: string, body: string | undefined): string {
  const digest = body === undefined ? '-' : sha256(body);
  return JSON.stringify([method, path, authorization, digest]);
}
