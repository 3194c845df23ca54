/**
 * HTTP/1.1 framing for the raw lanes (raw-lane.ts): the request head written
 * byte for byte as undici writes it, and a strict, bounded reader of the
 * answers. The reader takes only what RFC 9112 allows and undici's parser
 * (llhttp, strict) takes: a status line `HTTP/1.x ddd reason`, header lines
 * `token: value` ended by CRLF, a body framed by one Content-Length, by a
 * Transfer-Encoding ending in `chunked`, or by the connection's end; interim
 * 1xx answers skipped (RFC 9110 §15.2). Anything else is a framing error,
 * which the lane counts as a socket error, as undici does: a test feeds the
 * same answers to both (test/e2e/load/raw-lane.test.ts).
 *
 * Bounds, as undici's: the header fields of one answer at most
 * {@link MAX_HEADER_SIZE} bytes (names and values), the body kept at most the
 * run's read bound (the rest read and dropped), a chunk-size line at most
 * {@link MAX_LINE} bytes.
 */
import { FramingError, MAX_HEADER_SIZE, readHead } from './h1-head.js';

export { encodeRequest, FramingError, MAX_HEADER_SIZE, type RawRequest } from './h1-head.js';
/** A chunk-size line or a trailer line longer than this is a framing error. */
const MAX_LINE = 16 * 1024;
/** A chunk size past what llhttp counts in 64 bits (near enough: no such chunk ends before the deadline anyway). */
const MAX_CHUNK = 2 ** 60;
/** undici's keep-alive defaults: an idle connection is kept 4 s, or the server's hint less 2 s, at most 10 min. */
const KEEP_ALIVE_DEFAULT_MS = 4_000;
const KEEP_ALIVE_THRESHOLD_MS = 2_000;
const KEEP_ALIVE_MAX_MS = 600_000;

/** A complete final answer. */
export interface Answer {
  status: number;
  /** The head's header lines (no status line), when the answer is kept: see {@link H1Reader.begin}. */
  head: string | undefined;
  body: Buffer[] | undefined;
  size: number;
  truncated: boolean;
  /** The connection may carry the next request; `keepAliveMs`: for how long idle. */
  reusable: boolean;
  keepAliveMs: number;
}

const HEADER_LINE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*$/;
const CHUNK_SIZE = /^([0-9A-Fa-f]+)(?:;[\t\x20-\x7e\x80-\xff]*)?$/;
/**
 * What may start a head that is not complete yet: a prefix of a status line,
 * then whole header lines, then a prefix of one. Bytes that can start no
 * head fail at once, as in undici's parser, rather than wait for the deadline.
 */
const HEAD_PREFIX =
  /^(?:H(?:T(?:T(?:P(?:\/(?:[0-9](?:\.(?:[0-9](?: (?:[0-9](?:[0-9](?:[0-9](?: [\t\x20-\x7e\x80-\xff]*\r?|\r)?)?)?)?)?)?)?)?)?)?)?)?)$|^HTTP\/[0-9]\.[0-9] [0-9]{3}(?: [\t\x20-\x7e\x80-\xff]*)?(?:\r\n[!#$%&'*+\-.^_`|~0-9A-Za-z]+:[\t\x20-\x7e\x80-\xff]*)*(?:\r|\r\n[!#$%&'*+\-.^_`|~0-9A-Za-z]*(?::[\t\x20-\x7e\x80-\xff]*)?\r?|\r\n\r)?$/;
const CRLF = Buffer.from('\r\n\r\n', 'latin1');

const enum Phase {
  Idle,
  Head,
  Length,
  ChunkSize,
  ChunkData,
  ChunkEnd,
  Trailers,
  UntilEnd,
}

/** Reads the answers of one connection, one request at a time. */
export class H1Reader {
  #phase = Phase.Idle;
  #held: Buffer | undefined;
  #remaining = 0;
  #answer: Answer | undefined;
  #keep = false;
  #wanted = false;
  readonly #maxBodyBytes: number;

  constructor(maxBodyBytes: number) {
    this.#maxBodyBytes = maxBodyBytes;
  }

  /** A request was written: its answer is read next. `wanted`: keep its head and body (also kept for a status ≥ 400). */
  begin(wanted: boolean): void {
    this.#phase = Phase.Head;
    this.#wanted = wanted;
    this.#held = undefined;
  }

  /** Bytes were read before any request was written, or after its answer: the connection carries what no request asked for. */
  get idle(): boolean {
    return this.#phase === Phase.Idle;
  }

  /** The answer is read up to the connection's end. */
  get untilEnd(): boolean {
    return this.#phase === Phase.UntilEnd;
  }

  /**
   * Reads `chunk`; returns the answer once complete (then `rest`: bytes after
   * it, which no request asked for), else undefined. Throws
   * {@link FramingError}.
   */
  push(chunk: Buffer): { answer: Answer; rest: number } | undefined {
    let data = chunk;
    let at = 0;
    if (this.#held) {
      data = Buffer.concat([this.#held, chunk]);
      this.#held = undefined;
    }
    while (at < data.length) {
      switch (this.#phase) {
        case Phase.Idle:
          throw new FramingError('bytes no request asked for');
        case Phase.Head: {
          const end = data.indexOf(CRLF, at);
          if (end < 0) {
            if (data.length - at > MAX_HEADER_SIZE + 1024) throw new FramingError('headers overflow');
            if (!HEAD_PREFIX.test(data.toString('latin1', at))) throw new FramingError('invalid head');
            this.#held = Buffer.from(data.subarray(at));
            return undefined;
          }
          const done = this.#head(data, at, end);
          at = end + 4;
          if (done) return { answer: done, rest: data.length - at };
          break;
        }
        case Phase.Length:
          at = this.#counted(data, at);
          if (this.#remaining === 0) return { answer: this.#complete(), rest: data.length - at };
          break;
        case Phase.ChunkSize:
        case Phase.ChunkEnd:
        case Phase.Trailers: {
          // The common lines read byte by byte: a CRLF after a chunk, the empty line after the last, a bare size.
          const fast = this.#fastLine(data, at);
          if (fast >= 0) {
            at = fast;
            if ((this.#phase as Phase) === Phase.Idle) return { answer: this.#complete(), rest: data.length - at };
            break;
          }
          const end = data.indexOf('\r\n', at, 'latin1');
          if (end < 0) {
            if (data.length - at > MAX_LINE) throw new FramingError('line too long');
            this.#held = Buffer.from(data.subarray(at));
            return undefined;
          }
          const line = data.toString('latin1', at, end);
          at = end + 2;
          if (this.#phase === Phase.ChunkEnd) {
            if (line !== '') throw new FramingError('chunk not followed by CRLF');
            this.#phase = Phase.ChunkSize;
          } else if (this.#phase === Phase.Trailers) {
            if (line === '') return { answer: this.#complete(), rest: data.length - at };
            if (!HEADER_LINE.test(line)) throw new FramingError('invalid trailer');
          } else {
            const size = CHUNK_SIZE.exec(line);
            if (!size) throw new FramingError('invalid chunk size');
            this.#remaining = parseInt(size[1]!, 16);
            if (this.#remaining > MAX_CHUNK) throw new FramingError('chunk size overflow');
            this.#phase = this.#remaining === 0 ? Phase.Trailers : Phase.ChunkData;
          }
          break;
        }
        case Phase.ChunkData:
          at = this.#counted(data, at);
          if (this.#remaining === 0) this.#phase = Phase.ChunkEnd;
          break;
        case Phase.UntilEnd:
          this.#body(data, at, data.length - at);
          at = data.length;
      }
    }
    return undefined;
  }

  /**
   * Reads a CRLF (after a chunk, or ending the trailers) or a chunk size
   * without extension at `at`, the line whole in `data`; returns where the
   * next line starts (the phase moved on; {@link Phase.Idle} once the answer
   * is complete), or -1 to read it as a line. Throws on bytes no such line
   * can hold.
   */
  #fastLine(data: Buffer, at: number): number {
    if (this.#phase !== Phase.ChunkSize) {
      if (at + 1 >= data.length || data[at] !== 0x0d || data[at + 1] !== 0x0a) {
        if (this.#phase === Phase.ChunkEnd && at < data.length && data[at] !== 0x0d) throw new FramingError('chunk not followed by CRLF');
        return -1;
      }
      this.#phase = this.#phase === Phase.ChunkEnd ? Phase.ChunkSize : Phase.Idle;
      return at + 2;
    }
    let size = 0;
    let i = at;
    for (; i < data.length; i++) {
      const c = data[i]!;
      const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
      if (digit < 0) break;
      size = size * 16 + digit;
    }
    if (i === at || i + 1 >= data.length || data[i] !== 0x0d || data[i + 1] !== 0x0a) return -1;
    if (size > MAX_CHUNK) throw new FramingError('chunk size overflow');
    this.#remaining = size;
    this.#phase = size === 0 ? Phase.Trailers : Phase.ChunkData;
    return i + 2;
  }

  /** The connection ended: the answer read up to its end, if its body was framed so; else undefined (a failure). */
  end(): Answer | undefined {
    return this.#phase === Phase.UntilEnd ? this.#complete() : undefined;
  }

  /** An answer's head, `data` from `start` to `end` (its blank line); returns the answer when it has no body. */
  #head(data: Buffer, start: number, end: number): Answer | undefined {
    const head = readHead(data, start, end);
    const code = head.status;
    const length = head.length;
    const encoded = head.encoded;
    if (code < 100) throw new FramingError('invalid status');
    if (length >= 0 && encoded) throw new FramingError('content-length with transfer-encoding');
    // Interim answers: the final one follows (a 101 switches protocols no request asked to switch).
    if (code === 101) throw new FramingError('bad upgrade');
    // No body for these, whatever the head says; a Content-Length other than 0 on them is a mismatch to undici.
    const bodiless = code < 200 || code === 204 || code === 304;
    if (bodiless && length > 0) throw new FramingError('content-length mismatch');
    if (code < 200) return undefined;
    // As llhttp: HTTP/1.1 keeps the connection unless told to close; 1.0, 2.0 and 0.9 only when told to keep it.
    const reusable = head.version === 11 ? !head.close : head.keepAlive;
    const keepAliveMs =
      head.timeout < 0 ? KEEP_ALIVE_DEFAULT_MS : Math.min(head.timeout * 1000 - KEEP_ALIVE_THRESHOLD_MS, KEEP_ALIVE_MAX_MS);
    const chunked = head.chunked;
    this.#keep = this.#wanted || code >= 400;
    this.#answer = {
      status: code,
      head: this.#keep ? (head.lines < end ? data.toString('latin1', head.lines, end) : '') : undefined,
      body: this.#keep ? [] : undefined,
      size: 0,
      truncated: false,
      reusable: reusable && keepAliveMs > 0,
      keepAliveMs,
    };
    if (bodiless || length === 0) return this.#complete();
    if (chunked) this.#phase = Phase.ChunkSize;
    else if (length > 0) {
      this.#remaining = length;
      this.#phase = Phase.Length;
    } else {
      this.#phase = Phase.UntilEnd;
      this.#answer.reusable = false;
    }
    return undefined;
  }

  /** Takes what `data` holds from `at` of the bytes still counted (a Content-Length body, a chunk); returns where it ended. */
  #counted(data: Buffer, at: number): number {
    const take = Math.min(this.#remaining, data.length - at);
    this.#body(data, at, take);
    this.#remaining -= take;
    return at + take;
  }

  #body(data: Buffer, at: number, length: number): void {
    const answer = this.#answer!;
    if (!this.#keep || answer.truncated || length === 0) return;
    const room = this.#maxBodyBytes - answer.size;
    const take = Math.min(room, length);
    // A copy: the lane's read buffer is reused.
    answer.body!.push(Buffer.from(data.subarray(at, at + take)));
    answer.size += take;
    if (length > room) answer.truncated = true;
  }

  #complete(): Answer {
    const answer = this.#answer!;
    this.#answer = undefined;
    this.#phase = Phase.Idle;
    return answer;
  }
}

/** Header lines of a kept answer as one lower-cased record; repeated headers joined with `, ` (as the undici lane's). */
export function headersOfHead(head: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (head === '') return out;
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).toLowerCase();
    // As undici's parser: leading whitespace left out, trailing whitespace kept.
    const value = line.slice(colon + 1).replace(/^[\t ]+/, '');
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}
