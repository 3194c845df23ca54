/**
 * A run's transcript: every exchange as an entry of an HTTP Archive (HAR 1.2,
 * so browsers' devtools and other HAR tools open it), the key redacted
 * (`certify` writes it into the bundle), and {@link TranscriptReplayer}, a
 * {@link Transport} that answers a run's requests from a transcript instead of
 * the network (`verify` recomputes the verdicts with it). Reading the file back,
 * against its schema (spec/transcript-schema.ts), is certification/transcript.ts's.
 *
 * What HAR has no field for is in the suite's own fields, prefixed `_` as HAR
 * allows: the order of sending (`_seq`), what the engine sent it for
 * (`_meta`), a transport error (`_error`, the response then status 0, as
 * browsers write a request that got no answer), a body cut at its bound
 * (`_truncated`). Bodies are the redacted bytes exactly: a response's as
 * base64 (`encoding`), a request's as text when it is UTF-8 and as base64
 * (`_encoding`) when it is not. A body that is valid UTF-8 is redacted as
 * text; one that is not is read as Latin-1, byte for byte, redacted, and kept
 * byte for byte where nothing was replaced.
 */
import {
  KeyInRequestError,
  recordedExchange,
  type RedactedExchange,
  type RedactedTransport,
  redactExchange,
  requestDigest,
  vouchFor,
} from './boundary.js';
import { TransportError } from './errors.js';
import type { Exchange, Method, RequestSpec } from './http.js';
import { decodeUtf8 } from './json.js';
import type { Shapes } from './fingerprints.js';
import { sentHeaders } from './request-headers.js';
import type { Redactor } from './redact/redactor.js';
import { sha256 } from './hash.js';
import { TOOL_VERSION } from './version.js';

/** The codes a transport error can have (core/errors.ts `TransportError`). */
export const TRANSPORT_ERROR_CODES = ['PC_ERR_UNREACHABLE', 'PC_ERR_TIMEOUT', 'PC_ERR_TLS', 'PC_ERR_PROTOCOL'] as const;
export type TransportErrorCode = (typeof TRANSPORT_ERROR_CODES)[number];

/** A header, or a query parameter, as HAR lists them. */
export interface HarPair {
  name: string;
  value: string;
}

/** One entry of the transcript, a HAR 1.2 entry (its schema: spec/transcript-schema.ts). Header values, URLs, bodies and error messages are redacted. */
export interface TranscriptEntry {
  /** When the request was sent (the exchange's end less its duration). */
  startedDateTime: string;
  /** The exchange's duration, ms. */
  time: number;
  request: {
    method: Method;
    url: string;
    httpVersion: 'HTTP/1.1';
    cookies: [];
    headers: HarPair[];
    queryString: HarPair[];
    /** The bytes sent: UTF-8 text, or base64 when `_encoding` says so; absent when there was no body. */
    postData?: { mimeType: string; text: string; _encoding?: 'base64' };
    headersSize: -1;
    bodySize: number;
  };
  /** Status 0 and no content when there was no response (`_error` says why). */
  response: {
    status: number;
    statusText: '';
    httpVersion: 'HTTP/1.1';
    cookies: [];
    headers: HarPair[];
    /** `text`: base64 of the bytes received, at most the bound (`_truncated` when there were more). */
    content: { size: number; mimeType: string; text: string; encoding: 'base64' };
    redirectURL: '';
    headersSize: -1;
    bodySize: number;
    _truncated: boolean;
  };
  cache: Record<string, never>;
  timings: { send: 0; wait: number; receive: 0 };
  /** Order of sending within the run, from 1. */
  _seq: number;
  /** What the engine sent it for: the operation, how it authenticated, the check (`preflight`, a check id, `load.<profile>.…`). */
  _meta: { operation: string; auth: string; check: string };
  /** Why there was no response. */
  _error?: { code: TransportErrorCode; message: string };
}

/** The transcript file: an HTTP Archive. */
export interface Transcript {
  log: { version: '1.2'; creator: { name: 'petstore-conformance'; version: string }; entries: TranscriptEntry[] };
}

/** An exchange as the engine hands it to `onExchange`. */
export type RecordedExchange = Exchange & { meta: { operation: string; auth: string; check: string } };

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
const pairs = (headers: Record<string, string>): HarPair[] => Object.entries(headers).map(([name, value]) => ({ name, value }));

/** The value of header `name` (any letter case) in a list of headers; '' when absent. */
export function headerOf(headers: readonly HarPair[], name: string): string {
  return headers.find((h) => h.name.toLowerCase() === name)?.value ?? '';
}

/** The bytes a transcript entry's request sent; undefined when it had no body. */
export function requestBytes(entry: TranscriptEntry): Uint8Array | undefined {
  const data = entry.request.postData;
  if (!data) return undefined;
  return data._encoding === 'base64' ? Buffer.from(data.text, 'base64') : Buffer.from(data.text, 'utf8');
}

function postData(body: Uint8Array, mimeType: string): NonNullable<TranscriptEntry['request']['postData']> {
  // Bytes that are not UTF-8 are kept as base64, never replaced; the BOM kept: the text gives back the very bytes.
  const text = decodeUtf8(body, { keepBom: true });
  return text === undefined ? { mimeType, text: base64(body), _encoding: 'base64' } : { mimeType, text };
}

/** The query of a URL as HAR lists it (for display; the URL is what is compared). */
function queryOf(url: string): HarPair[] {
  const query = url.indexOf('?');
  return query < 0 ? [] : [...new URLSearchParams(url.slice(query + 1))].map(([name, value]) => ({ name, value }));
}

/**
 * The transcript entry of one exchange, redacted with `redactor`. The engine's
 * exchanges were redacted at the boundary already (core/boundary.ts); this
 * redacts again, which changes nothing there, so the transcript holds exactly
 * what the run judged. Called as the exchange completes: its start is now
 * less its duration.
 */
export function toTranscriptEntry(exchange: RecordedExchange, redactor: Redactor): TranscriptEntry {
  const { request, response, error } = redactExchange(exchange, redactor);
  const time = Math.round(exchange.durationMs * 1000) / 1000;
  return {
    startedDateTime: new Date(Date.now() - exchange.durationMs).toISOString(),
    time,
    request: {
      method: request.method,
      url: request.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(request.headers),
      // Decoded for display: redacted again, so that no escape undone here shows a key.
      queryString: queryOf(request.url).map(({ name, value }) => ({ name: redactor.redact(name), value: redactor.redact(value) })),
      ...(request.body === undefined ? {} : { postData: postData(request.body, request.headers['content-type'] ?? '') }),
      headersSize: -1,
      bodySize: request.body?.length ?? 0,
    },
    response: {
      status: response?.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(response?.headers ?? {}),
      content: {
        size: response?.body.length ?? 0,
        mimeType: response?.headers['content-type'] ?? '',
        text: response ? base64(response.body) : '',
        encoding: 'base64',
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: response?.body.length ?? -1,
      _truncated: response?.truncated ?? false,
    },
    cache: {},
    timings: { send: 0, wait: time, receive: 0 },
    _seq: exchange.seq,
    _meta: { operation: exchange.meta.operation, auth: exchange.meta.auth, check: exchange.meta.check },
    ...(error ? { _error: { code: error.code as TransportErrorCode, message: error.message } } : {}),
  };
}

/** transcript.har's text: the entries in `_seq` order, one entry a line (so that a diff reads by exchange). */
export function renderTranscript(entries: readonly TranscriptEntry[]): string {
  const log = JSON.stringify({ version: '1.2', creator: { name: 'petstore-conformance', version: TOOL_VERSION } } satisfies Omit<
    Transcript['log'],
    'entries'
  >);
  const lines = [...entries].sort((a, b) => a._seq - b._seq).map((e) => JSON.stringify(e));
  return `{"log":${log.slice(0, -1)},"entries":[\n${lines.join(',\n')}\n]}}\n`;
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
  /** Each client's shape as the recorded run had it (core/clients.ts), so that a request goes with the headers it went with. Default: core/fingerprints.ts. */
  shapes?: Shapes;
}

/**
 * A transport that answers from a transcript. Its answers crossed the
 * redaction boundary when they were recorded, and are given back byte for
 * byte (core/boundary.ts `recordedExchange`). A request matches a
 * recorded exchange with the same method, path and query, body bytes and
 * (redacted) Authorization header; exchanges with the same match are used
 * in `_seq` order, each once. A request nothing matches gets a transport error
 * and is kept in {@link unmatched}: the replay has diverged from the run.
 */
export class TranscriptReplayer implements RedactedTransport {
  readonly #queues = new Map<string, TranscriptEntry[]>();
  readonly #entries: readonly TranscriptEntry[];
  readonly #used = new Set<number>();
  readonly #base: string;
  readonly #redactor: Redactor;
  readonly #withheld: ReadonlySet<string>;
  readonly #shapes: Shapes | undefined;
  #seq = 0;
  /** Requests no recorded exchange answered, in order. */
  readonly unmatched: UnmatchedRequest[] = [];

  constructor(entries: readonly TranscriptEntry[], options: ReplayOptions) {
    this.#entries = [...entries].sort((a, b) => a._seq - b._seq);
    this.#base = options.baseUrl.replace(/\/+$/, '');
    this.#redactor = options.redactor;
    vouchFor(this);
    this.#withheld = options.withheld ?? new Set();
    this.#shapes = options.shapes;
    for (const entry of this.#entries) {
      const url = entry.request.url;
      // A URL outside the base cannot be asked for: keyed so that nothing matches it.
      const path = url.startsWith(this.#base) ? url.slice(this.#base.length) : `\u0000${url}`;
      const key = matchKey(
        entry.request.method,
        path,
        headerOf(entry.request.headers, 'authorization'),
        requestBytes(entry),
        headerOf(entry.request.headers, 'user-agent'),
      );
      const queue = this.#queues.get(key);
      if (queue) queue.push(entry);
      else this.#queues.set(key, [entry]);
    }
  }

  get requestsSent(): number {
    return this.#seq;
  }

  /** Recorded exchanges no request of the replay asked for, in `_seq` order. */
  unused(): TranscriptEntry[] {
    return this.#entries.filter((e) => !this.#used.has(e._seq));
  }

  async send(spec: RequestSpec): Promise<RedactedExchange> {
    if (this.#withheld.size > 0) {
      const digest = requestDigest(spec);
      if (this.#withheld.has(digest)) throw new KeyInRequestError(digest);
    }
    const seq = ++this.#seq;
    const headers = sentHeaders(spec, new URL(this.#base).origin, {}, undefined, this.#shapes);
    const body = typeof spec.body === 'string' ? new TextEncoder().encode(spec.body) : spec.body;
    const url = `${this.#base}${spec.path}`;
    const exchange: Exchange = { seq, request: { method: spec.method, url, headers, ...(body ? { body } : {}) }, durationMs: 0 };
    const path = this.#redactor.redact(spec.path);
    const authorization = this.#redactor.redact(header(headers, 'authorization'));
    const key = matchKey(
      spec.method,
      path,
      authorization,
      body === undefined ? undefined : this.#redactor.redactBytes(body),
      header(headers, 'user-agent'),
    );
    const entry = this.#queues.get(key)?.shift();
    if (!entry) {
      this.unmatched.push({ seq, method: spec.method, path, authorization });
      exchange.error = new TransportError(
        'PC_ERR_PROTOCOL',
        `${spec.method} ${path} is not in the transcript (the replay diverged from the recorded run)`,
      );
      return recordedExchange(exchange, this.#redactor);
    }
    this.#used.add(entry._seq);
    exchange.durationMs = entry.time;
    const { response } = entry;
    if (entry._error) exchange.error = new TransportError(entry._error.code, entry._error.message);
    else
      exchange.response = {
        status: response.status,
        headers: Object.fromEntries(response.headers.map((h) => [h.name, h.value])),
        body: Buffer.from(response.content.text, 'base64'),
        truncated: response._truncated,
      };
    return recordedExchange(exchange, this.#redactor);
  }

  async close(): Promise<void> {}
}

function header(headers: Record<string, string>, name: string): string {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return '';
}

/**
 * What a request is matched by. The User-Agent tells apart the same request
 * sent as two clients (the differential probe sends it as each): a target
 * answering by client then gets each answer back to the client it went to.
 */
function matchKey(method: string, path: string, authorization: string, body: Uint8Array | undefined, userAgent: string): string {
  const digest = body === undefined ? '-' : sha256(body);
  return JSON.stringify([method, path, authorization, digest, userAgent]);
}
